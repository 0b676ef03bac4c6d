import { SignJWT } from "jose";
import type { EnvVars } from "../env.ts";
import { ACCESS_TOKEN_ALG, signingKey, type ProjectAuth } from "./project-auth.ts";

/**
 * Access tokens: short-lived ES256 JWTs signed with the project's own key, so an app's
 * server verifies them offline against the project's JWKS. They carry the user id and
 * email; anything else the app needs (roles in metadata) it reads from auth_users.
 */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

/** Where a project's auth lives; also the tokens' issuer. */
export function authBaseUrl(config: EnvVars, slug: string): string {
  return `${config.API_ROOT.replace(/\/$/, "")}/v1/project/${slug}/auth`;
}

export function jwksUrl(config: EnvVars, slug: string): string {
  return `${authBaseUrl(config, slug)}/jwks.json`;
}

export async function signAccessToken(
  config: EnvVars,
  slug: string,
  auth: ProjectAuth,
  claims: { userId: string; email: string; sessionId: string },
): Promise<string> {
  return new SignJWT({ email: claims.email, sid: claims.sessionId })
    .setProtectedHeader({ alg: ACCESS_TOKEN_ALG, kid: auth.signing_kid, typ: "JWT" })
    .setSubject(claims.userId)
    .setIssuer(authBaseUrl(config, slug))
    .setAudience(slug)
    .setIssuedAt()
    .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
    .sign(await signingKey(config, auth));
}

/** The project's public keys, as RFC 7517 JWK Set. */
export function projectJwks(auth: ProjectAuth): { keys: Record<string, unknown>[] } {
  return { keys: [auth.signing_public_jwk as Record<string, unknown>] };
}
