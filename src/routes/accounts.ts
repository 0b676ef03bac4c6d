import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, BearerSecurity } from "./router.ts";
import { createAccount, findAccountById, findAccountForLogin, regenerateApiKey, revealApiKey } from "../accounts/accounts.ts";
import { signSessionToken } from "../accounts/session-tokens.ts";
import { hashPassword, verifyPassword } from "../platform/argon2.ts";
import { sessionAuth } from "../middleware/auth.ts";
import { notFound, unauthorized } from "../errors.ts";

// Dashboard account endpoints ({api_root}/api/auth):
//   POST /signup  POST /login  GET /me  POST /regenerate-api-key

export const Account = z
  .object({ id: z.string().uuid(), email: z.string(), name: z.string().nullable(), plan: z.string(), created_at: z.string() })
  .openapi("Account");
const SessionResponse = z.object({ token: z.string(), account: Account }).openapi("Session");

const Credentials = z.object({
  email: z.string().trim().toLowerCase().email("email must be a valid email address").max(254),
  password: z.string().min(8, "password must be at least 8 characters").max(1024),
});
const SignupBody = Credentials.extend({ name: z.string().trim().max(200).optional() });
const LoginBody = z.object({ email: z.string().trim().toLowerCase().max(254), password: z.string().max(1024) });

// Verifying against this when the email is unknown keeps login's timing the same either way.
let decoyHash: Promise<string> | undefined;

export const accountRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/signup", tags: ["Account"], summary: "Create an account", request: { body: jsonBody(SignupBody) }, responses: { 201: json(SessionResponse, "The account and a bearer token; the API key is at GET /api/auth/me"), ...errors(400, 409) } }),
    async (c) => {
      const body = c.req.valid("json");
      const config = c.get("config");
      const { account } = await createAccount(config, { email: body.email, name: body.name, passwordHash: await hashPassword(body.password) });
      c.set("accountId", account.id);
      return c.json({ token: await signSessionToken(account.id, config.JWT_SECRET), account }, 201);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/login", tags: ["Account"], summary: "Log in", request: { body: jsonBody(LoginBody) }, responses: { 200: json(SessionResponse, "A bearer token"), ...errors(400, 401) } }),
    async (c) => {
      const body = c.req.valid("json");
      const config = c.get("config");
      const found = await findAccountForLogin(config, body.email);
      const hash = found?.passwordHash ?? (await (decoyHash ??= hashPassword("decoy-password-never-matches")));
      const ok = await verifyPassword(body.password, hash);
      if (!found || !ok) throw unauthorized("Wrong email or password.");
      c.set("accountId", found.account.id);
      return c.json({ token: await signSessionToken(found.account.id, config.JWT_SECRET), account: found.account }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/me", tags: ["Account"], summary: "The account, with its API key", security: BearerSecurity, middleware: [sessionAuth] as const, responses: { 200: json(Account.extend({ api_key: z.string(), api_key_created_at: z.string() }), "The account"), ...errors(401) } }),
    async (c) => {
      const config = c.get("config");
      const account = await findAccountById(config, c.get("accountId")!);
      if (!account) throw notFound("Account not found; it may have been deleted.");
      const key = await revealApiKey(config, account.id);
      return c.json({ ...account, api_key: key.key, api_key_created_at: key.created_at }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/regenerate-api-key", tags: ["Account"], summary: "Replace the API key; the old one stops working at once", security: BearerSecurity, middleware: [sessionAuth] as const, responses: { 200: json(z.object({ api_key: z.string(), api_key_created_at: z.string() }), "The new key"), ...errors(401) } }),
    async (c) => {
      const key = await regenerateApiKey(c.get("config"), c.get("accountId")!);
      return c.json({ api_key: key.key, api_key_created_at: key.created_at }, 200);
    },
  );
