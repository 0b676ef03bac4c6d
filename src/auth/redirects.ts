import type { EnvVars } from "../env.ts";
import { badRequest } from "../errors.ts";
import { siteUrl } from "../projects/addresses.ts";
import type { ProjectAuth } from "./project-auth.ts";

/**
 * Where auth emails may send people (no open redirects): the project's site, its
 * deployed app, localhost (any port, for development), and the origins the project
 * allowed in its auth settings.
 */

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const isLocalHost = (host: string) => LOCAL_HOSTS.has(host) || host.endsWith(".localhost");

/** The origins a project's redirect_url may name, besides localhost. */
export function projectOrigins(config: EnvVars, slug: string, auth: ProjectAuth): string[] {
  return [new URL(siteUrl(config, slug)).origin, `https://${slug}.${config.APPS_DOMAIN}`, ...auth.allowed_redirect_origins];
}

/** Returns redirect_url when it is allowed; otherwise 400 naming what is. */
export function checkRedirectUrl(config: EnvVars, slug: string, auth: ProjectAuth, redirectUrl: string): string {
  let url: URL;
  try {
    url = new URL(redirectUrl);
  } catch {
    throw badRequest("redirect_url must be an absolute http(s) URL.", "invalid_redirect_url");
  }
  const origins = projectOrigins(config, slug, auth);
  const ok =
    (url.protocol === "https:" || url.protocol === "http:") &&
    !url.username &&
    !url.password &&
    (isLocalHost(url.hostname) || origins.includes(url.origin));
  if (!ok) {
    throw badRequest(
      `redirect_url must be on the project's site or app (${origins.slice(0, 2).join(", ")}), on localhost, or on an origin allowed with PATCH /${slug}/auth/settings.`,
      "redirect_not_allowed",
    );
  }
  return url.toString();
}

/** Checks an origin a project wants to allow: https (http only for localhost), nothing after the host. */
export function normalizeAllowedOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw badRequest(`"${origin}" is not an origin like https://app.example.com.`, "invalid_origin");
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLocalHost(url.hostname));
  if (!secure || url.origin !== origin.replace(/\/$/, "") || url.username) {
    throw badRequest(`"${origin}" is not an origin like https://app.example.com (https, no path, query or credentials).`, "invalid_origin");
  }
  return url.origin;
}

/** redirect_url with query parameters added (existing ones kept). */
export function withQuery(redirectUrl: string, params: Record<string, string>): string {
  const url = new URL(redirectUrl);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}
