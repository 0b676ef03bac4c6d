import { randomToken } from "../platform/crypto.ts";

/** 3-32 characters: lowercase letters, digits, single hyphens, starting and ending alphanumeric. */
export const SLUG_PATTERN = /^(?=.{3,32}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Slugs that would clash with platform paths, host names or server databases. */
const RESERVED = new Set([
  "projects", "tickets", "api", "admin", "www", "git", "docs", "openapi", "static", "assets", "app", "apps",
  "dev", "mail", "root", "postgres", "template0", "template1", "slipway", "status", "support", "dashboard",
]);

export function slugProblem(slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) {
    return "slug must be 3-32 characters of lowercase letters, digits and single hyphens, starting and ending with a letter or digit";
  }
  if (RESERVED.has(slug)) return `slug "${slug}" is reserved; choose another`;
  return null;
}

/** A slug derived from a project name: "My Cool App!" → "my-cool-app". */
export function slugFromName(name: string): string {
  const base = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 24)
    .replace(/-+$/g, "");
  return base.length >= 3 && !RESERVED.has(base) ? base : `project-${randomSuffix()}`;
}

/** Adds a short random suffix, for when the derived slug is taken. */
export function withSuffix(slug: string): string {
  return `${slug.slice(0, 25).replace(/-+$/g, "")}-${randomSuffix()}`;
}

function randomSuffix(): string {
  return randomToken(6).toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 6).padEnd(6, "0");
}
