/**
 * A site's `_redirects` and `_headers` files, in the Cloudflare Pages / Netlify syntax, so
 * existing sites move over unchanged.
 *
 *   _redirects:  /from  /to  [status]      one rule a line, first match wins
 *                /blog/*  /news/:splat  301    `*` is captured as :splat
 *                /users/:id  /u/:id            `:name` captures one path segment
 *                /*  /index.html  200           200 rewrites (served only when no file matches);
 *                                               404 serves the target with status 404
 *   _headers:    /path/pattern                 a pattern line, then indented lines
 *                  Header-Name: value          adds the header to matching responses
 *                  ! Header-Name               removes a header
 */

export type Pattern = { regex: RegExp };
export type RedirectRule = { from: Pattern; to: string; status: number };
export type HeaderRule = { path: Pattern; set: [string, string][]; remove: string[] };
export type SiteRules = { redirects: RedirectRule[]; headers: HeaderRule[] };

export const NO_RULES: SiteRules = { redirects: [], headers: [] };
const REDIRECT_STATUSES = new Set([200, 301, 302, 303, 307, 308, 404]);
const MAX_RULES = 2_100;

/** Compiles `/a/:id/*` to a regex with named groups (`splat` for `*`). */
export function compilePattern(pattern: string): Pattern {
  let source = "";
  let splats = 0;
  for (const token of pattern.split(/(:[A-Za-z]\w*|\*)/)) {
    if (token === "*") source += splats++ === 0 ? "(?<splat>.*)" : ".*";
    else if (/^:[A-Za-z]\w*$/.test(token)) source += `(?<${token.slice(1)}>[^/]+)`;
    else source += token.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  try {
    return { regex: new RegExp(`^${source}$`) };
  } catch {
    return { regex: /(?!)/ };
  }
}

/** Replaces :splat and :name in `template` with what `match` captured. */
export function fillPlaceholders(template: string, groups: Record<string, string> | undefined): string {
  if (!groups) return template;
  return template.replace(/:([A-Za-z]\w*)/g, (whole, name: string) => (name in groups ? groups[name]! : whole));
}

export function parseRedirects(text: string): RedirectRule[] {
  const rules: RedirectRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [from, to, statusText] = line.split(/\s+/);
    if (!from || !to || !from.startsWith("/")) continue;
    const status = statusText ? Number(statusText.replace(/!$/, "")) : 302;
    if (!REDIRECT_STATUSES.has(status)) continue;
    rules.push({ from: compilePattern(from), to, status });
    if (rules.length >= MAX_RULES) break;
  }
  return rules;
}

export function parseHeaders(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: HeaderRule | null = null;
  for (const raw of text.split(/\r?\n/)) {
    if (!raw.trim() || raw.trim().startsWith("#")) continue;
    if (!/^\s/.test(raw)) {
      const path = raw.trim();
      current = path.startsWith("/") ? { path: compilePattern(path), set: [], remove: [] } : null;
      if (current) rules.push(current);
      if (rules.length >= MAX_RULES) break;
      continue;
    }
    if (!current) continue;
    const line = raw.trim();
    if (line.startsWith("!")) {
      current.remove.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (/^[!#$%&'*+.^`|~\w-]+$/.test(name) && !/[\r\n]/.test(value)) current.set.push([name, value]);
  }
  return rules;
}

/** The first redirect rule matching `path`, with its target filled in. */
export function matchRedirect(rules: RedirectRule[], path: string): { to: string; status: number } | null {
  for (const rule of rules) {
    const m = rule.from.regex.exec(path);
    if (m) return { to: fillPlaceholders(rule.to, m.groups), status: rule.status };
  }
  return null;
}

/** Applies every matching `_headers` block to `headers`, in file order. */
export function applyHeaderRules(rules: HeaderRule[], path: string, headers: Headers): void {
  for (const rule of rules) {
    const m = rule.path.regex.exec(path);
    if (!m) continue;
    for (const name of rule.remove) headers.delete(name);
    const seen = new Set<string>();
    for (const [name, value] of rule.set) {
      const filled = fillPlaceholders(value, m.groups);
      // A header named in a block replaces the default; repeated in the block, it is appended.
      if (seen.has(name.toLowerCase())) headers.append(name, filled);
      else headers.set(name, filled);
      seen.add(name.toLowerCase());
    }
  }
}
