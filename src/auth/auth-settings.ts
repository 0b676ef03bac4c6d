import type { EnvVars } from "../env.ts";
import type { Project } from "../projects/projects.ts";
import { ACCESS_TOKEN_TTL_SECONDS, authBaseUrl, jwksUrl } from "./access-tokens.ts";
import { MAGIC_LINK_TTL_MINUTES } from "./magic-link.ts";
import { RESET_TTL_MINUTES } from "./password-reset.ts";
import { projectAuth, type ProjectAuth } from "./project-auth.ts";
import { projectOrigins } from "./redirects.ts";
import { REFRESH_TOKEN_TTL_SECONDS } from "./refresh-tokens.ts";

/** A project's auth settings as the owner sees them. */
export function authSettingsView(config: EnvVars, project: Project, auth: ProjectAuth) {
  return {
    publishable_key: auth.publishable_key,
    jwks_url: jwksUrl(config, project.slug),
    issuer: authBaseUrl(config, project.slug),
    allowed_redirect_origins: auth.allowed_redirect_origins,
    redirect_origins: projectOrigins(config, project.slug, auth),
    access_token_ttl_seconds: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token_ttl_seconds: REFRESH_TOKEN_TTL_SECONDS,
    magic_link_ttl_minutes: MAGIC_LINK_TTL_MINUTES,
    password_reset_ttl_minutes: RESET_TTL_MINUTES,
  };
}

/** What the project details (/info) show of auth: the browser key and where tokens are verified. */
export async function authSummary(config: EnvVars, project: Project) {
  const auth = await projectAuth(config, project.id);
  return { publishable_key: auth.publishable_key, jwks_url: jwksUrl(config, project.slug), issuer: authBaseUrl(config, project.slug) };
}
