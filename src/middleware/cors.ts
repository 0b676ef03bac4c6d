import { cors } from "hono/cors";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Browser origins the API answers: the project sites' domain and its subdomains, and
 * localhost (any port, including `*.localhost`). Everyone else calls server-side.
 */
export function isAllowedOrigin(origin: string, sitesDomain: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  const host = url.hostname;
  if (LOCAL_HOSTS.has(host) || host.endsWith(".localhost")) return true;
  return url.protocol === "https:" && (host === sitesDomain || host.endsWith(`.${sitesDomain}`));
}

export const corsPolicy: MiddlewareHandler<AppEnv> = (c, next) =>
  cors({
    origin: (origin) => (isAllowedOrigin(origin, c.get("config").SITES_DOMAIN) ? origin : null),
    allowHeaders: ["Content-Type", "Authorization", "X-API-Key", "X-Request-Id", "X-Publishable-Key"],
    allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    exposeHeaders: ["X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"],
    maxAge: 600,
  })(c, next);
