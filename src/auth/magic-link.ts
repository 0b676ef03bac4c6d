import { ApiError } from "../errors.ts";
import { magicLinkEmail } from "../email/auth-emails.ts";
import { emailSender } from "../email/email-sender.ts";
import type { TokenCheck } from "../../durable-objects/auth-tokens.ts";
import type { AuthContext } from "./auth-context.ts";
import { authBaseUrl } from "./access-tokens.ts";
import { checkRedirectUrl, withQuery } from "./redirects.ts";
import { startSession, type Session } from "./sessions.ts";
import { findOrCreateUserByEmail, findUserById, recordLogin, type AuthUser } from "./users.ts";

/**
 * Magic links: an emailed link (token valid 15 minutes, single use) that signs the user in
 * and sends them to redirect_url with user_id, verified=true and a one-time `code`. The
 * app trades the code for a session at POST /auth/token within CODE_TTL_SECONDS, so no
 * long-lived secret ever sits in a URL or browser history.
 */
export const MAGIC_LINK_TTL_MINUTES = 15;
export const CODE_TTL_SECONDS = 120;

/** Sends a sign-in link, creating the user when the email is new. The plan's daily limit is checked by the caller. */
export async function sendMagicLink(ctx: AuthContext, input: { email: string; redirect_url: string; name?: string }): Promise<void> {
  const redirectUrl = checkRedirectUrl(ctx.config, ctx.project.slug, await ctx.settings(), input.redirect_url);
  const user = await findOrCreateUserByEmail(ctx.db, input.email, input.name ?? null);
  const { token } = await ctx.tokens.issue({ kind: "magic_link", userId: user.id, email: user.email, redirectUrl, ttlSeconds: MAGIC_LINK_TTL_MINUTES * 60 });
  const link = `${authBaseUrl(ctx.config, ctx.project.slug)}/verify?token=${encodeURIComponent(token)}`;
  await emailSender(ctx.env, ctx.config).send(magicLinkEmail(ctx.project.name, user.email, link, MAGIC_LINK_TTL_MINUTES));
}

/**
 * Spends a magic-link token; returns where to send the browser. `redirect`, when given,
 * replaces the redirect_url the link was sent with and is checked the same way.
 */
export async function verifyMagicLink(ctx: AuthContext, token: string, redirect?: string): Promise<{ location: string; user: AuthUser }> {
  const override = redirect === undefined ? undefined : checkRedirectUrl(ctx.config, ctx.project.slug, await ctx.settings(), redirect);
  const result = await ctx.tokens.consume("magic_link", token);
  if (!result.ok) throw tokenError(result, "sign-in link", "Ask for a new one.");
  const user = await recordLogin(ctx.db, result.record.userId, { verifiesEmail: true });
  const { token: code } = await ctx.tokens.issue({ kind: "magic_code", userId: user.id, email: user.email, redirectUrl: null, ttlSeconds: CODE_TTL_SECONDS });
  return { location: withQuery(override ?? result.record.redirectUrl!, { user_id: user.id, verified: "true", code }), user };
}

/** Trades the one-time code from a magic-link redirect for a session. */
export async function exchangeCode(ctx: AuthContext, code: string): Promise<{ user: AuthUser; session: Session }> {
  const result = await ctx.tokens.consume("magic_code", code);
  if (!result.ok) throw tokenError(result, "code", "Sign in again.", 401);
  const { user } = await findUserById(ctx.db, result.record.userId);
  return { user, session: await startSession(ctx.config, ctx.project, ctx.db, user) };
}

/** 400 (or `status`) saying why a token cannot be used. */
export function tokenError(result: Extract<TokenCheck, { ok: false }>, what: string, then: string, status: 400 | 401 = 400): ApiError {
  const why = { invalid: "is not valid", expired: "has expired", used: "was already used" }[result.reason];
  return new ApiError(status, `This ${what} ${why}. ${then}`, { code: `token_${result.reason}` });
}
