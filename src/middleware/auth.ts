import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { unauthorized } from "../errors.ts";
import { findAccountByApiKey } from "../accounts/accounts.ts";
import { verifySessionToken } from "../accounts/session-tokens.ts";
import { timingSafeEqual } from "../platform/crypto.ts";

/** Platform authentication for {base_url}: the account's key in `X-API-Key`. */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("x-api-key");
  if (!key) throw unauthorized("Missing X-API-Key header. Send your account's API key (see GET /api/auth/me).");
  const account = await findAccountByApiKey(c.get("config"), key);
  if (!account) throw unauthorized("Invalid API key. It may have been regenerated; fetch the current one with GET /api/auth/me.");
  c.set("accountId", account.id);
  c.set("account", account);
  await next();
});

function bearer(header: string | undefined): string | null {
  const m = header?.match(/^Bearer\s+(\S+)$/i);
  return m ? m[1]! : null;
}

/** Dashboard authentication: `Authorization: Bearer <JWT>` from signup or login. */
export const sessionAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!token) throw unauthorized("Missing bearer token. Log in with POST /api/auth/login and send Authorization: Bearer <token>.");
  const accountId = await verifySessionToken(token, c.get("config").JWT_SECRET);
  if (!accountId) throw unauthorized("Invalid or expired bearer token. Log in again with POST /api/auth/login.");
  c.set("accountId", accountId);
  await next();
});

/** Operator authentication for /admin: `Authorization: Bearer <ADMIN_TOKEN>`. */
export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearer(c.req.header("authorization"));
  if (!token || !timingSafeEqual(token, c.get("config").ADMIN_TOKEN)) throw unauthorized("Admin endpoints need Authorization: Bearer <ADMIN_TOKEN>.");
  await next();
});
