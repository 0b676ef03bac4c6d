import type { Bindings, EnvVars } from "../env.ts";
import { ApiError, badRequest } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import { siteUrl } from "../projects/addresses.ts";
import { objectKey } from "../storage/object-keys.ts";
import { encodeKey } from "../storage/presign.ts";
import { grantUpload, listFiles } from "../storage/objects.ts";
import { ensureStorageRoom, markStorageChanged } from "../storage/usage.ts";
import { forgetSiteRules } from "./site-cache.ts";

/** A project's static site files: base64 uploads, presigned uploads for large files, listing. */

/** "under 5 MB": a decoded file of this many bytes or more must use use_presigned. */
export const MAX_BASE64_UPLOAD_BYTES = 5 * 1024 * 1024;

/** The public address of a site file. */
export function siteFileUrl(config: EnvVars, slug: string, path: string): string {
  return `${siteUrl(config, slug).replace(/\/$/, "")}/${encodeKey(path)}`;
}

function decodedLength(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function decodeBase64(base64: string): Uint8Array {
  try {
    const bin = atob(base64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  } catch {
    throw badRequest("content is not valid base64.", "invalid_base64");
  }
}

/** Stores a file sent inline as base64; 413 at 5 MB or more, pointing to use_presigned. */
export async function uploadSiteFile(env: Bindings, config: EnvVars, project: Project, input: { path: string; contentBase64: string; contentType: string }) {
  const key = objectKey(project.id, "site", input.path);
  const base64 = input.contentBase64.replace(/\s+/g, "");
  const size = decodedLength(base64);
  if (size >= MAX_BASE64_UPLOAD_BYTES) {
    throw new ApiError(413, `The file is ${size} bytes; base64 uploads must be under 5 MB (${MAX_BASE64_UPLOAD_BYTES} bytes). Send {filename, content_type, use_presigned: true} instead and PUT the bytes to the upload_url it returns.`, { code: "payload_too_large" });
  }
  const bytes = decodeBase64(base64);
  await ensureStorageRoom(env, config, project, bytes.length);
  const stored = await env.BUCKET.put(key, bytes, { httpMetadata: { contentType: input.contentType } });
  await markStorageChanged(config, project.id);
  forgetSiteRules(project.id);
  return { uploaded: true, url: siteFileUrl(config, project.slug, input.path), path: input.path, size: stored.size, etag: stored.httpEtag };
}

/** An upload address for a large site file, and the public url it will have. */
export async function grantSiteUpload(env: Bindings, config: EnvVars, project: Project, input: { path: string; contentType: string; expires: number; size?: number }) {
  const grant = await grantUpload(env, config, project, "site", input);
  return { uploaded: false, url: siteFileUrl(config, project.slug, input.path), ...grant };
}

export async function listSiteFiles(env: Bindings, config: EnvVars, project: Project, opts: { path: string; cursor?: string; limit: number }) {
  const page = await listFiles(env, project, "site", { prefix: opts.path, cursor: opts.cursor, limit: opts.limit });
  return { ...page, files: page.files.map((f) => ({ ...f, url: siteFileUrl(config, project.slug, f.path) })) };
}
