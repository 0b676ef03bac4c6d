import { badRequest, conflict, unauthorized } from "../errors.ts";
import { hashPassword, verifyPassword } from "../platform/argon2.ts";
import type { AuthContext } from "./auth-context.ts";
import { revokeUserRefreshTokens } from "./refresh-tokens.ts";
import { startSession, type Session } from "./sessions.ts";
import { createUser, findUserById, findUserForLogin, recordLogin, storePasswordHash, type AuthUser } from "./users.ts";

/** Password sign-up, login and password changes of a project's end users (Argon2id). */

export const MIN_PASSWORD_LENGTH = 8;

// Verifying against this when the email is unknown (or has no password) keeps login's
// timing the same either way, so it does not tell whether an email is registered.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword("decoy password that never matches"));

export async function signUp(ctx: AuthContext, input: { email: string; password: string; name?: string; metadata?: Record<string, unknown> }): Promise<{ user: AuthUser; session: Session }> {
  const user = await createUser(ctx.db, { email: input.email, name: input.name, metadata: input.metadata, passwordHash: await hashPassword(input.password) });
  // Signing up starts a session but is not counted as a login (login_count stays 0).
  return { user, session: await startSession(ctx.config, ctx.project, ctx.db, user) };
}

/** The user and a session for the right email and password; null for anything else. */
export async function logIn(ctx: AuthContext, input: { email: string; password: string }): Promise<{ user: AuthUser; session: Session } | null> {
  const found = await findUserForLogin(ctx.db, input.email);
  const ok = await verifyPassword(input.password, found?.passwordHash ?? (await decoy()));
  if (!found || !found.passwordHash || !ok) return null;
  const user = await recordLogin(ctx.db, found.user.id, { verifiesEmail: false });
  return { user, session: await startSession(ctx.config, ctx.project, ctx.db, user) };
}

export async function changePassword(ctx: AuthContext, input: { user_id: string; current_password: string; new_password: string }): Promise<AuthUser> {
  const { passwordHash } = await findUserById(ctx.db, input.user_id);
  if (!passwordHash) throw badRequest("This user has no password yet (they signed in by magic link); set one with POST /{slug}/auth/set-password.", "no_password");
  if (!(await verifyPassword(input.current_password, passwordHash))) throw unauthorized("The current password is wrong.");
  return replacePassword(ctx, input.user_id, input.new_password, false);
}

/** Gives a password to a user who has none (e.g. one created by a magic link). */
export async function setPassword(ctx: AuthContext, input: { user_id: string; password: string }): Promise<AuthUser> {
  const { passwordHash } = await findUserById(ctx.db, input.user_id);
  if (passwordHash) throw conflict("This user already has a password; change it with POST /{slug}/auth/change-password or reset it by email.");
  return replacePassword(ctx, input.user_id, input.password, false);
}

/**
 * Stores a new password and ends everything the old one allowed: the user's refresh
 * tokens, and their outstanding magic-link and reset tokens.
 */
export async function replacePassword(ctx: AuthContext, userId: string, password: string, verifiesEmail: boolean): Promise<AuthUser> {
  const user = await storePasswordHash(ctx.db, userId, await hashPassword(password), { verifiesEmail });
  await Promise.all([revokeUserRefreshTokens(ctx.db, userId), ctx.tokens.revokeUser(userId)]);
  return user;
}
