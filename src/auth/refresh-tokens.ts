import { randomToken, sha256Hex } from "../platform/crypto.ts";
import type { AuthDb } from "./auth-db.ts";

/**
 * Refresh tokens: 256 random bits, stored only as SHA-256 in auth_refresh_tokens. Each
 * use rotates: the token is spent and a new one of the same family is issued. Presenting
 * a spent token means it leaked (or two clients share it), so its whole family is revoked.
 */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

const PREFIX = "rt_";

export async function issueRefreshToken(db: AuthDb, userId: string, familyId: string = crypto.randomUUID()): Promise<{ token: string; familyId: string }> {
  const token = PREFIX + randomToken(32);
  await db.query(
    `insert into auth_refresh_tokens (user_id, family_id, token_hash, expires_at) values ($1, $2, $3, now() + make_interval(secs => $4))`,
    [userId, familyId, await sha256Hex(token), REFRESH_TOKEN_TTL_SECONDS],
  );
  return { token, familyId };
}

/**
 * Spends a refresh token and returns its user and family, or null when it is unknown,
 * expired, revoked or already spent (then the family is revoked). One statement decides,
 * so of two concurrent uses exactly one wins.
 */
export async function spendRefreshToken(db: AuthDb, token: string): Promise<{ userId: string; familyId: string } | null> {
  if (!token.startsWith(PREFIX)) return null;
  const hash = await sha256Hex(token);
  const rows = await db.query<{ user_id: string; family_id: string }>(
    `update auth_refresh_tokens set used_at = now()
     where token_hash = $1 and used_at is null and revoked_at is null and expires_at > now()
     returning user_id, family_id`,
    [hash],
  );
  if (rows[0]) return { userId: rows[0].user_id, familyId: rows[0].family_id };
  await db.query(
    `update auth_refresh_tokens set revoked_at = now()
     where revoked_at is null and family_id = (select family_id from auth_refresh_tokens where token_hash = $1 and used_at is not null)`,
    [hash],
  );
  return null;
}

/** Ends the sign-in a refresh token belongs to (logout). Unknown tokens are ignored. */
export async function revokeRefreshFamily(db: AuthDb, token: string): Promise<void> {
  await db.query(
    `update auth_refresh_tokens set revoked_at = now()
     where revoked_at is null and family_id = (select family_id from auth_refresh_tokens where token_hash = $1)`,
    [await sha256Hex(token)],
  );
}

/** Ends every sign-in of a user: after a password change or reset. */
export async function revokeUserRefreshTokens(db: AuthDb, userId: string): Promise<void> {
  await db.query(`update auth_refresh_tokens set revoked_at = now() where user_id = $1 and revoked_at is null`, [userId]);
}
