import type { EnvVars } from "../env.ts";
import { unauthorized } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import type { AuthDb } from "./auth-db.ts";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from "./access-tokens.ts";
import { projectAuth } from "./project-auth.ts";
import { issueRefreshToken, REFRESH_TOKEN_TTL_SECONDS, spendRefreshToken } from "./refresh-tokens.ts";
import { findUserById, type AuthUser } from "./users.ts";

/** What signup, login, refresh and the magic-link code exchange give the app. */
export type Session = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  refresh_token_expires_in: number;
};

/** Starts a session for a user: a new refresh-token family and an access token. */
export async function startSession(config: EnvVars, project: Project, db: AuthDb, user: Pick<AuthUser, "id" | "email">, familyId?: string): Promise<Session> {
  const auth = await projectAuth(config, project.id);
  const refresh = await issueRefreshToken(db, user.id, familyId);
  const accessToken = await signAccessToken(config, project.slug, auth, { userId: user.id, email: user.email, sessionId: refresh.familyId });
  return { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refresh.token, refresh_token_expires_in: REFRESH_TOKEN_TTL_SECONDS };
}

/** Trades a refresh token for a new pair (rotation); 401 when it cannot be used. */
export async function refreshSession(config: EnvVars, project: Project, db: AuthDb, refreshToken: string): Promise<{ session: Session; user: AuthUser }> {
  const spent = await spendRefreshToken(db, refreshToken);
  if (!spent) throw unauthorized("The refresh token is invalid, expired, revoked or already used. Sign in again.");
  const { user } = await findUserById(db, spent.userId);
  return { session: await startSession(config, project, db, user, spent.familyId), user };
}
