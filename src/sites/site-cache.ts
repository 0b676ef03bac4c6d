import type { Bindings, EnvVars } from "../env.ts";
import { findProjectBySlug } from "../projects/projects.ts";
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
const projects = new Map<string, Entry<{ id: string } | null>>();
const rules = new Map<string, Entry<Promise<SiteRules>>>();
const MAX_ENTRIES = 10_000;

function fresh<T>(entry: Entry<T> | undefined): entry is Entry<T> {
  return !!entry && Date.now() - entry.at < SITE_CACHE_SECONDS * 1000;
}

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_ENTRIES) map.clear();
  map.set(key, value);
}

/** The project a site slug belongs to, or null for none. */
export async function siteProject(config: EnvVars, slug: string): Promise<{ id: string } | null> {
  const cached = projects.get(slug);
  if (fresh(cached)) return cached.value;
  const project = await findProjectBySlug(config, slug);
  const value = project ? { id: project.id } : null;
  remember(projects, slug, { value, at: Date.now() });
  return value;
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

export function siteRules(env: Bindings, projectId: string): Promise<SiteRules> {
  const cached = rules.get(projectId);
  if (fresh(cached)) return cached.value;
  const value = readRules(env.BUCKET, projectId).catch((err) => {
    rules.delete(projectId);
    throw err;
  });
  remember(rules, projectId, { value, at: Date.now() });
  return value;
}

/** Call after a site file changes. */
export function forgetSiteRules(projectId: string): void {
  rules.delete(projectId);
}
