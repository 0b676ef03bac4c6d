import type { Bindings, EnvVars } from "../env.ts";
import { findProjectBySlug } from "../projects/projects.ts";
import { ApiError } from "../errors.ts";
import { areaPrefix } from "../storage/object-keys.ts";
import { NO_RULES, parseHeaders, parseRedirects, type SiteRules } from "./site-rules.ts";

/**
 * Per-isolate memory of what every site request would otherwise look up again: which
 * project a slug names (a control-plane query) and the site's parsed `_redirects` and
 * `_headers` (two R2 reads). Entries live a few seconds; a write through this isolate
 * forgets the site's rules at once, other isolates see it within SITE_CACHE_SECONDS.
 */

export const SITE_CACHE_SECONDS = 10;

type Entry<T> = { value: T; at: number };
// Values only, never in-flight promises: a promise made by one request and awaited by
// another hangs in workerd when the first request ends before its I/O does.
const projects = new Map<string, Entry<{ id: string } | null>>();
const rules = new Map<string, Entry<SiteRules>>();
const MAX_ENTRIES = 10_000;

function fresh<T>(entry: Entry<T> | undefined): boolean {
  return !!entry && Date.now() - entry.at < SITE_CACHE_SECONDS * 1000;
}

function remember<K, V>(map: Map<K, Entry<V>>, key: K, value: V): V {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, { value, at: Date.now() });
  return value;
}

/**
 * The project a site slug belongs to, or null for none. When the control plane fails,
 * the last known answer is served (stale-if-error); with none the site answers 503.
 */
export async function siteProject(config: EnvVars, slug: string): Promise<{ id: string } | null> {
  const cached = projects.get(slug);
  if (cached && fresh(cached)) return cached.value;
  try {
    const project = await findProjectBySlug(config, slug);
    return remember(projects, slug, project ? { id: project.id } : null);
  } catch (cause) {
    if (cached) return cached.value;
    throw new ApiError(503, "The site directory (control-plane database) is unavailable; retry in a few seconds.", { code: "database_unavailable", cause });
  }
}

async function readRules(bucket: R2Bucket, projectId: string): Promise<SiteRules> {
  const base = areaPrefix(projectId, "site");
  const [redirects, headers] = await Promise.all([bucket.get(`${base}_redirects`), bucket.get(`${base}_headers`)]);
  if (!redirects && !headers) return NO_RULES;
  return {
    redirects: redirects ? parseRedirects(await redirects.text()) : [],
    headers: headers ? parseHeaders(await headers.text()) : [],
  };
}

export async function siteRules(env: Bindings, projectId: string): Promise<SiteRules> {
  const cached = rules.get(projectId);
  if (cached && fresh(cached)) return cached.value;
  return remember(rules, projectId, await readRules(env.BUCKET, projectId));
}

/** Call after a site file changes. */
export function forgetSiteRules(projectId: string): void {
  rules.delete(projectId);
}
