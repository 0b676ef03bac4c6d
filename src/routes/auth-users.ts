import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { ownerOnly } from "../middleware/auth-caller.ts";
import { authContext } from "../auth/auth-context.ts";
import { changePassword, setPassword } from "../auth/password-auth.ts";
import { deleteUser, findUserById, listUsers, updateUser } from "../auth/users.ts";
import { AUTH_TABLES, ensureAuthTables } from "../auth/auth-schema.ts";
import { projectAuth, regeneratePublishableKey, setAllowedRedirectOrigins } from "../auth/project-auth.ts";
import { authSettingsView } from "../auth/auth-settings.ts";
import { normalizeAllowedOrigin } from "../auth/redirects.ts";
import {
  AuthSettings, AuthSettingsPatch, AuthSlugParam, AuthUser, ChangePasswordBody, SetPasswordBody, Success, UserIdParam, UserPatch, UsersQuery,
} from "./auth-schemas.ts";

// End-user auth, owner only (X-API-Key, from a server), {base_url}/{slug}/auth/…
//   POST change-password  POST set-password
//   GET users  GET users/{id}  PATCH users/{id}  DELETE users/{id}
//   POST init  GET|PATCH settings  POST publishable-key

const tags = ["End-user auth"];
const security = ApiKeySecurity;
const middleware = [ownerOnly];

export const ownerAuthRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/change-password", tags, summary: "Change a user's password, given the current one", security, middleware, request: { params: AuthSlugParam, body: jsonBody(ChangePasswordBody) }, responses: { 200: json(Success, "Changed; the user's sessions and emailed links are ended"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      await changePassword(await authContext(c), c.req.valid("json"));
      return c.json({ success: true as const }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/set-password", tags, summary: "Give a password to a user who has none (e.g. created by magic link)", security, middleware, request: { params: AuthSlugParam, body: jsonBody(SetPasswordBody) }, responses: { 200: json(Success, "Set"), ...errors(400, 401, 404, 409, 503) } }),
    async (c) => {
      await setPassword(await authContext(c), c.req.valid("json"));
      return c.json({ success: true as const }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/users", tags, summary: "List the project's users, oldest first", security, middleware, request: { params: AuthSlugParam, query: UsersQuery }, responses: { 200: json(z.object({ users: z.array(AuthUser), total: z.number().int(), limit: z.number().int(), offset: z.number().int() }), "A page of users"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      const { limit, offset, verified_only } = c.req.valid("query");
      const { users, total } = await listUsers((await authContext(c)).db, { limit, offset, verifiedOnly: verified_only });
      return c.json({ users, total, limit, offset }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/users/{id}", tags, summary: "One user", security, middleware, request: { params: UserIdParam }, responses: { 200: json(AuthUser, "The user"), ...errors(401, 404, 503) } }),
    async (c) => c.json((await findUserById((await authContext(c)).db, c.req.valid("param").id)).user, 200),
  )
  .openapi(
    createRoute({ method: "patch", path: "/{slug}/auth/users/{id}", tags, summary: "Change a user's name, metadata (replaced whole) or avatar_url", security, middleware, request: { params: UserIdParam, body: jsonBody(UserPatch) }, responses: { 200: json(AuthUser, "The updated user"), ...errors(400, 401, 404, 503) } }),
    async (c) => c.json(await updateUser((await authContext(c)).db, c.req.valid("param").id, c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{slug}/auth/users/{id}", tags, summary: "Delete a user, their sessions and their emailed links", security, middleware, request: { params: UserIdParam }, responses: { 200: json(z.object({ deleted: z.literal(true), id: z.string() }), "Deleted"), ...errors(401, 404, 503) } }),
    async (c) => {
      const ctx = await authContext(c);
      const { id } = c.req.valid("param");
      await deleteUser(ctx.db, id);
      await ctx.tokens.revokeUser(id);
      return c.json({ deleted: true as const, id }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/init", tags, summary: "Create the auth tables (otherwise made on the first auth call); idempotent", security, middleware, request: { params: AuthSlugParam }, responses: { 200: json(z.object({ initialized: z.literal(true), tables: z.array(z.string()) }), "The tables exist"), ...errors(401, 404, 503) } }),
    async (c) => {
      await ensureAuthTables(c.get("config"), c.get("project")!, true);
      return c.json({ initialized: true as const, tables: [...AUTH_TABLES] }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/settings", tags, summary: "The publishable key, JWKS address, allowed redirect origins and token lifetimes", security, middleware, request: { params: AuthSlugParam }, responses: { 200: json(AuthSettings, "Settings"), ...errors(401, 404) } }),
    async (c) => {
      const project = c.get("project")!;
      return c.json(authSettingsView(c.get("config"), project, await projectAuth(c.get("config"), project.id)), 200);
    },
  )
  .openapi(
    createRoute({ method: "patch", path: "/{slug}/auth/settings", tags, summary: "Set the extra origins redirect_url may name", security, middleware, request: { params: AuthSlugParam, body: jsonBody(AuthSettingsPatch) }, responses: { 200: json(AuthSettings, "Settings"), ...errors(400, 401, 404) } }),
    async (c) => {
      const config = c.get("config");
      const project = c.get("project")!;
      const origins = [...new Set(c.req.valid("json").allowed_redirect_origins.map(normalizeAllowedOrigin))];
      return c.json(authSettingsView(config, project, await setAllowedRedirectOrigins(config, project, origins)), 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/publishable-key", tags, summary: "Replace the publishable key; the old one stops working at once", security, middleware, request: { params: AuthSlugParam }, responses: { 200: json(z.object({ publishable_key: z.string() }), "The new key"), ...errors(401, 404) } }),
    async (c) => c.json({ publishable_key: await regeneratePublishableKey(c.get("config"), c.get("project")!) }, 200),
  );
