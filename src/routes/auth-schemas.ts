import { z } from "@hono/zod-openapi";
import { MIN_PASSWORD_LENGTH } from "../auth/password-auth.ts";

/** Request and response schemas of the end-user auth endpoints. */

export const AuthSlugParam = z.object({ slug: z.string().openapi({ param: { name: "slug", in: "path" }, example: "my-app" }) });
export const UserIdParam = AuthSlugParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "6f1c…" }) });

export const Email = z.string().trim().max(254, "email must be at most 254 characters").email("email must be a valid email address");
export const NewPassword = (field: string) =>
  z.string().min(MIN_PASSWORD_LENGTH, `${field} must be at least ${MIN_PASSWORD_LENGTH} characters`).max(1024, `${field} must be at most 1024 characters`);
export const Metadata = z.record(z.string(), z.unknown()).openapi({ description: "Any JSON object (roles, permissions…); stored as JSONB", example: { role: "admin" } });
const RedirectUrl = z.string().max(2048).openapi({ description: "Where the emailed link leads: the project's site or app, localhost, or an allowed origin", example: "http://localhost:3000/welcome" });

export const AuthUser = z
  .object({
    id: z.string().uuid(),
    email: z.string(),
    name: z.string().nullable(),
    has_password: z.boolean(),
    login_count: z.number().int(),
    metadata: z.record(z.string(), z.unknown()),
    avatar_url: z.string().nullable(),
    email_verified: z.boolean(),
    email_verified_at: z.string().nullable(),
    last_login_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("AuthUser");

const SessionFields = {
  access_token: z.string().openapi({ description: "ES256 JWT; verify it with the project's JWKS" }),
  token_type: z.literal("Bearer"),
  expires_in: z.number().int().openapi({ description: "Seconds the access token is valid" }),
  refresh_token: z.string().openapi({ description: "Single use: each refresh returns a new one" }),
  refresh_token_expires_in: z.number().int(),
};
export const SessionResponse = z.object({ success: z.literal(true), user: AuthUser, ...SessionFields }).openapi("AuthSession");
export const Success = z.object({ success: z.literal(true) }).openapi("AuthSuccess");

export const SignupBody = z.object({ email: Email, password: NewPassword("password"), name: z.string().trim().max(200).optional(), metadata: Metadata.optional() });
export const LoginBody = z.object({ email: z.string().trim().max(254), password: z.string().max(1024) });
export const RefreshBody = z.object({ refresh_token: z.string().min(1).max(200) });
export const CodeBody = z.object({ code: z.string().min(1).max(200).openapi({ description: "The `code` from the magic-link redirect" }) });
export const MagicLinkBody = z.object({ email: Email, redirect_url: RedirectUrl, name: z.string().trim().max(200).optional() });
export const MagicLinkSent = z.object({ sent: z.boolean(), expires_in_minutes: z.number().int() }).openapi("MagicLinkSent");
export const ResetBody = z.object({ email: Email, redirect_url: RedirectUrl });
export const ResetConfirmBody = z.object({ token: z.string().min(1).max(200), new_password: NewPassword("new_password") });
export const TokenQuery = z.object({ token: z.string().min(1, "token is required").max(200) });
export const VerifyQuery = TokenQuery.extend({ redirect: z.string().max(2048).optional().openapi({ description: "Overrides the redirect_url given when the link was sent; must be allowed the same way" }) });
export const ChangePasswordBody = z.object({ user_id: z.string(), current_password: z.string().max(1024), new_password: NewPassword("new_password") });
export const SetPasswordBody = z.object({ user_id: z.string(), password: NewPassword("password") });
export const UserPatch = z
  .object({ name: z.string().trim().max(200).nullable().optional(), metadata: Metadata.optional(), avatar_url: z.string().url("avatar_url must be a URL").max(2048).nullable().optional() })
  .openapi("AuthUserPatch");
const booleanQuery = z.enum(["true", "false", "1", "0"]).optional().transform((v) => v === "true" || v === "1");
export const UsersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50).openapi({ description: "1-1000, default 50" }),
  offset: z.coerce.number().int().min(0).default(0),
  verified_only: booleanQuery.openapi({ description: "Only users whose email is verified (magic link or reset)" }),
});
export const AuthSettings = z
  .object({
    publishable_key: z.string(),
    jwks_url: z.string().url(),
    issuer: z.string().url(),
    allowed_redirect_origins: z.array(z.string()),
    redirect_origins: z.array(z.string()).openapi({ description: "Every origin redirect_url may name, besides localhost" }),
    access_token_ttl_seconds: z.number().int(),
    refresh_token_ttl_seconds: z.number().int(),
    magic_link_ttl_minutes: z.number().int(),
    password_reset_ttl_minutes: z.number().int(),
  })
  .openapi("AuthSettings");
export const AuthSettingsPatch = z.object({ allowed_redirect_origins: z.array(z.string().max(300)).max(50) });
