import { createMiddleware } from "hono/factory";
import type { AppEnv, Bindings, EnvVars } from "../env.ts";
import { SLUG_PATTERN } from "../projects/slug.ts";
import { areaPrefix, pathProblem } from "../storage/object-keys.ts";
import { serveObject } from "../storage/object-response.ts";
import { siteProject, siteRules } from "./site-cache.ts";
import { applyHeaderRules, matchRedirect, type SiteRules } from "./site-rules.ts";
import { contentTypeFor } from "./content-types.ts";
import { notFoundPage } from "./pages.ts";

/**
 * Static site hosting: a request whose Host is a project's site address (from
 * SITE_URL_TEMPLATE, e.g. <slug>.slipway.site or <slug>.localhost) is answered from the
 * project's site files in R2, in this same Worker; every other request goes on to the API.
 */

/** Files are revalidated on every use (ETag → 304), so a new upload shows at once. */
export const SITE_CACHE_CONTROL = "public, max-age=0, must-revalidate";
const HIDDEN = new Set(["_headers", "_redirects"]);

const hostPatterns = new Map<string, { before: string; after: string }>();

/** The slug a Host header names, or null when it is not a site address. */
export function siteSlugFromHost(config: EnvVars, host: string | undefined): string | null {
  if (!host) return null;
  let pattern = hostPatterns.get(config.SITE_URL_TEMPLATE);
  if (!pattern) {
    const hostname = new URL(config.SITE_URL_TEMPLATE.replace("{slug}", "slug-placeholder")).hostname;
    const [before, after] = hostname.split("slug-placeholder") as [string, string];
    pattern = { before, after };
    hostPatterns.set(config.SITE_URL_TEMPLATE, pattern);
  }
  const hostname = host.toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
  if (!hostname.startsWith(pattern.before) || !hostname.endsWith(pattern.after)) return null;
  const slug = hostname.slice(pattern.before.length, hostname.length - pattern.after.length);
  return SLUG_PATTERN.test(slug) ? slug : null;
}

export const serveSites = createMiddleware<AppEnv>(async (c, next) => {
  const slug = siteSlugFromHost(c.get("config"), c.req.header("host"));
  if (!slug) return next();
  c.set("projectSlug", slug);
  return serveSite(c.env, c.get("config"), slug, c.req.raw);
});

async function serveSite(env: Bindings, config: EnvVars, slug: string, request: Request): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("Method Not Allowed\n", { status: 405, headers: { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" } });
  }
  const project = await siteProject(config, slug);
  if (!project) return notFoundPage(`There is no site at ${slug}.`);
  const url = new URL(request.url);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return notFoundPage("This page does not exist.");
  }
  const rules = await siteRules(env, project.id);
  const redirect = matchRedirect(rules.redirects, path);
  if (redirect && redirect.status !== 200 && redirect.status !== 404) {
    return withRules(Response.redirect(new URL(redirect.to, url).href, redirect.status), rules, path);
  }
  const base = areaPrefix(project.id, "site");
  const serve = (file: string, status = 200) => serveObject(env.BUCKET, base + file, request, { status, cacheControl: SITE_CACHE_CONTROL, fallbackContentType: contentTypeFor(file) });

  const file = fileFor(path);
  let response = file ? await serve(file) : null;
  if (!response && file && !path.endsWith("/") && !/\.[^/]*$/.test(file)) {
    // Pretty URLs, as Cloudflare Pages and Netlify serve them: /about → about.html.
    response = await serve(`${file}.html`);
  }
  if (!response && file && !path.endsWith("/") && (await env.BUCKET.head(`${base}${file}/index.html`))) {
    // A directory asked for without its slash: send the browser to it, so relative links work.
    response = new Response(null, { status: 301, headers: { Location: `${url.pathname}/${url.search}` } });
  }
  if (!response && redirect) {
    const target = fileFor(new URL(redirect.to, url).pathname);
    if (target) response = await serve(target, redirect.status);
  }
  if (!response) response = (await serve("404.html", 404)) ?? notFoundPage("This page does not exist.");
  return withRules(response, rules, path);
}

/** The file a URL path names: index.html for "/" and for directories; null for hidden or invalid paths. */
function fileFor(path: string): string | null {
  const file = (path.endsWith("/") ? `${path}index.html` : path).replace(/^\/+/, "");
  if (pathProblem(file) || HIDDEN.has(file)) return null;
  return file;
}

function withRules(response: Response, rules: SiteRules, path: string): Response {
  if (!rules.headers.length) return response;
  const out = new Response(response.body, response);
  applyHeaderRules(rules.headers, path, out.headers);
  return out;
}
