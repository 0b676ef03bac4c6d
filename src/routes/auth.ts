import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody } from "./router.ts";
import { anyCaller, appOrOwner } from "../middleware/auth-caller.ts";
import { authContext } from "../auth/auth-context.ts";
import { logIn, signUp } from "../auth/password-auth.ts";
import { loginGuard } from "../auth/login-guard.ts";
import { refreshSession } from "../auth/sessions.ts";
import { revokeRefreshFamily } from "../auth/refresh-tokens.ts";
import { exchangeCode, MAGIC_LINK_TTL_MINUTES, sendMagicLink, verifyMagicLink } from "../auth/magic-link.ts";
import { checkResetToken, confirmPasswordReset, requestPasswordReset, RESET_TTL_MINUTES } from "../auth/password-reset.ts";
import { checkRedirectUrl } from "../auth/redirects.ts";
import { projectAuth } from "../auth/project-auth.ts";
import { projectJwks } from "../auth/access-tokens.ts";
import { enforceRateLimit } from "../limits/rate-limit.ts";
import { magicLinksRule, resetEmailsRule } from "../limits/rules.ts";
import { sha256Hex } from "../platform/crypto.ts";
import { unauthorized } from "../errors.ts";
import { ownerAuthRoutes } from "./auth-users.ts";
import {
  AuthSlugParam, CodeBody, LoginBody, MagicLinkBody, MagicLinkSent, RefreshBody, ResetBody, ResetConfirmBody,
  SessionResponse, SignupBody, Success, TokenQuery, VerifyQuery,
} from "./auth-schemas.ts";

// End-user authentication, {base_url}/{slug}/auth/…
//   self-service (X-Publishable-Key from a browser, or X-API-Key from a server):
//     POST signup  POST login  POST refresh  POST logout  POST token (magic-link code)
//     POST send-magic-link  POST reset-password  GET|POST reset-password/confirm
//   public: GET verify (the emailed link)  GET jwks.json
//   owner only (X-API-Key): see auth-users.ts

const AppKeySecurity: Record<string, string[]>[] = [{ PublishableKey: [] }, { ApiKey: [] }];
const tags = ["End-user auth"];

const selfService = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/signup", tags, summary: "Create an end user with a password", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(SignupBody) }, responses: { 201: json(SessionResponse, "The user and a session"), ...errors(400, 401, 404, 409, 503) } }),
    async (c) => {
      const { user, session } = await signUp(await authContext(c), c.req.valid("json"));
      return c.json({ success: true as const, user, ...session }, 201);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/login", tags, summary: "Log in with email and password", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(LoginBody) }, responses: { 200: json(SessionResponse, "The user (with login_count) and a session"), ...errors(400, 401, 404, 429, 503) } }),
    async (c) => {
      const body = c.req.valid("json");
      const guard = await loginGuard(c, c.get("project")!, body.email);
      await guard.check();
      const result = await logIn(await authContext(c), body);
      if (!result) {
        await guard.recordFailure();
        throw unauthorized("Wrong email or password.");
      }
      return c.json({ success: true as const, user: result.user, ...result.session }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/refresh", tags, summary: "Trade a refresh token for a new access and refresh token", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(RefreshBody) }, responses: { 200: json(SessionResponse, "A new session; the old refresh token is spent"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      const ctx = await authContext(c);
      const { session, user } = await refreshSession(ctx.config, ctx.project, ctx.db, c.req.valid("json").refresh_token);
      return c.json({ success: true as const, user, ...session }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/logout", tags, summary: "End the session a refresh token belongs to", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(RefreshBody) }, responses: { 200: json(Success, "Signed out (also for unknown tokens)"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      await revokeRefreshFamily((await authContext(c)).db, c.req.valid("json").refresh_token);
      return c.json({ success: true as const }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/token", tags, summary: "Trade the one-time code of a magic-link redirect for a session", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(CodeBody) }, responses: { 200: json(SessionResponse, "The user and a session"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      const { user, session } = await exchangeCode(await authContext(c), c.req.valid("json").code);
      return c.json({ success: true as const, user, ...session }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/send-magic-link", tags, summary: "Email a sign-in link (creates the user when new)", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(MagicLinkBody) }, responses: { 200: json(MagicLinkSent, "Sent"), ...errors(400, 401, 404, 429, 502, 503) } }),
    async (c) => {
      const body = c.req.valid("json");
      const ctx = await authContext(c);
      checkRedirectUrl(ctx.config, ctx.project.slug, await ctx.settings(), body.redirect_url);
      await enforceRateLimit(c, magicLinksRule(ctx.project));
      await sendMagicLink(ctx, body);
      return c.json({ sent: true, expires_in_minutes: MAGIC_LINK_TTL_MINUTES }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/reset-password", tags, summary: "Email a password-reset link, if the email is registered", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(ResetBody) }, responses: { 200: json(MagicLinkSent, "The same answer whether or not the email is registered"), ...errors(400, 401, 404, 429) } }),
    async (c) => {
      const body = c.req.valid("json");
      const ctx = await authContext(c);
      checkRedirectUrl(ctx.config, ctx.project.slug, await ctx.settings(), body.redirect_url);
      await enforceRateLimit(c, resetEmailsRule(ctx.project, await sha256Hex(body.email.toLowerCase())));
      await requestPasswordReset(ctx, body);
      return c.json({ sent: true, expires_in_minutes: RESET_TTL_MINUTES }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/reset-password/confirm", tags, summary: "Check a reset token without spending it", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, query: TokenQuery }, responses: { 200: json(z.object({ valid: z.literal(true), email: z.string(), expires_at: z.string() }), "The token can be used"), ...errors(400, 401, 404) } }),
    async (c) => {
      const checked = await checkResetToken(await authContext(c), c.req.valid("query").token);
      return c.json({ valid: true as const, ...checked }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/auth/reset-password/confirm", tags, summary: "Set a new password with a reset token", security: AppKeySecurity, middleware: [appOrOwner] as const, request: { params: AuthSlugParam, body: jsonBody(ResetConfirmBody) }, responses: { 200: json(Success, "Password set; the user's other sessions and links are ended"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      await confirmPasswordReset(await authContext(c), c.req.valid("json"));
      return c.json({ success: true as const }, 200);
    },
  );

const publicRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/verify", tags, summary: "Follow an emailed sign-in link", middleware: [anyCaller] as const, request: { params: AuthSlugParam, query: VerifyQuery }, responses: { 302: { description: "To redirect_url with user_id, verified=true and a one-time code" }, ...errors(400, 404) } }),
    async (c) => {
      const { token, redirect } = c.req.valid("query");
      const { location } = await verifyMagicLink(await authContext(c), token, redirect);
      c.header("Cache-Control", "no-store");
      c.header("Referrer-Policy", "no-referrer");
      return c.redirect(location, 302);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/auth/jwks.json", tags, summary: "The project's public keys for verifying access tokens", middleware: [anyCaller] as const, request: { params: AuthSlugParam }, responses: { 200: json(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), "RFC 7517 JWK Set"), ...errors(404) } }),
    async (c) => {
      const auth = await projectAuth(c.get("config"), c.get("project")!.id);
      c.header("Cache-Control", "public, max-age=300");
      return c.json(projectJwks(auth), 200);
    },
  );

export const authRoutes = createRouter().route("/", selfService).route("/", publicRoutes).route("/", ownerAuthRoutes);
