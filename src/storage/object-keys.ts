import { badRequest } from "../errors.ts";

/**
 * Where a project's bytes live in the one R2 bucket. Every key starts with the project's
 * own prefix, and user paths are checked before they are joined to it, so no path can
 * name another project's object.
 *
 *   projects/<project id>/objects/<path>   object storage (POST /{slug}/storage/upload …)
 *   projects/<project id>/site/<path>      the static site (POST /{slug}/files …)
 *
 * (Git packs live beside them under projects/<project id>/git/, see src/git/.)
 */

export type Area = "objects" | "site";

/** Areas whose bytes count as the project's storage. */
export const AREAS: readonly Area[] = ["objects", "site"];

/** Longest user path in UTF-8 bytes: S3 keys stop at 1024, and the prefix takes 54. */
export const MAX_PATH_BYTES = 900;
const MAX_SEGMENT_BYTES = 255;
const CONTROL = /[\u0000-\u001f\u007f]/;

const encoder = new TextEncoder();

/** What is wrong with a user-supplied path, or null when it is fine. */
export function pathProblem(path: string): string | null {
  if (path.length === 0) return "The path is empty; give a file name such as images/logo.png.";
  if (encoder.encode(path).length > MAX_PATH_BYTES) return `The path is longer than ${MAX_PATH_BYTES} bytes.`;
  if (CONTROL.test(path)) return "The path contains a control character.";
  if (path.includes("\\")) return "Use / to separate folders; backslashes are not allowed in paths.";
  if (path.startsWith("/")) return "The path must be relative (no leading /): it is placed inside your project.";
  for (const segment of path.split("/")) {
    if (segment === "") return "The path has an empty segment (a trailing / or //).";
    if (segment === "." || segment === "..") return "The path may not contain . or .. segments.";
    if (encoder.encode(segment).length > MAX_SEGMENT_BYTES) return `Each part of the path must be at most ${MAX_SEGMENT_BYTES} bytes.`;
  }
  return null;
}

/** A checked path, or 400 saying what is wrong with it. */
export function checkedPath(path: string): string {
  const problem = pathProblem(path);
  if (problem) throw badRequest(`Invalid path "${path.slice(0, 100)}": ${problem}`, "invalid_path");
  return path;
}

/** A listing prefix may be empty or end in "/", but must otherwise be a valid path. */
export function checkedPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  const problem = pathProblem(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
  if (problem) throw badRequest(`Invalid prefix "${prefix.slice(0, 100)}": ${problem}`, "invalid_path");
  return prefix;
}

export function projectPrefix(projectId: string): string {
  return `projects/${projectId}/`;
}

export function areaPrefix(projectId: string, area: Area): string {
  return `${projectPrefix(projectId)}${area}/`;
}

/** The R2 key of a checked user path. */
export function objectKey(projectId: string, area: Area, path: string): string {
  return areaPrefix(projectId, area) + checkedPath(path);
}

/** Which project and area an R2 key belongs to (used by the local S3 endpoint after a write). */
export function parseKey(key: string): { projectId: string; area: Area; path: string } | null {
  const m = key.match(/^projects\/([0-9a-f-]{36})\/(objects|site)\/(.+)$/);
  return m ? { projectId: m[1]!, area: m[2] as Area, path: m[3]! } : null;
}
