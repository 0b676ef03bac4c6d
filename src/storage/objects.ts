import type { Bindings, EnvVars } from "../env.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import { areaPrefix, checkedPrefix, objectKey, type Area } from "./object-keys.ts";
import { presign, type S3Target } from "./presign.ts";
import { ensureStorageRoom, markStorageChanged } from "./usage.ts";

/** Object storage of a project: presigned uploads and downloads, listing, deleting. */

/** Bounds of `expires` (seconds) for presigned URLs; documented in the README. */
export const EXPIRES = { min: 1, max: 7 * 24 * 3600, default: 3600 } as const;
export const LIST_LIMIT = { max: 1000, default: 100 } as const;

export function s3Target(config: EnvVars): S3Target {
  return {
    endpoint: config.STORAGE_S3_ENDPOINT,
    bucket: config.STORAGE_BUCKET,
    region: config.STORAGE_REGION,
    accessKeyId: config.STORAGE_ACCESS_KEY_ID,
    secretAccessKey: config.STORAGE_SECRET_ACCESS_KEY,
  };
}

export type UploadGrant = {
  upload_url: string;
  method: "PUT";
  path: string;
  headers: Record<string, string>;
  expires_in: number;
  expires_at: string;
};

/**
 * A presigned PUT for `path` in the project's `area`, after checking the storage limit.
 * Content-Type is signed, and Content-Length too when the caller declares `size`.
 */
export async function grantUpload(
  env: Bindings,
  config: EnvVars,
  project: Project,
  area: Area,
  input: { path: string; contentType: string; expires: number; size?: number },
): Promise<UploadGrant> {
  const key = objectKey(project.id, area, input.path);
  await ensureStorageRoom(env, config, project, input.size ?? 0);
  const headers: Record<string, string> = { "content-type": input.contentType };
  if (input.size !== undefined) headers["content-length"] = String(input.size);
  const signed = await presign(s3Target(config), { method: "PUT", key, expiresIn: input.expires, headers });
  return {
    upload_url: signed.url,
    method: "PUT",
    path: input.path,
    headers: Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k === "content-type" ? "Content-Type" : "Content-Length", v])),
    expires_in: input.expires,
    expires_at: signed.expiresAt.toISOString(),
  };
}

/** A presigned GET for an existing object; 404 when there is none. */
export async function grantDownload(env: Bindings, config: EnvVars, project: Project, path: string, expires: number) {
  const key = objectKey(project.id, "objects", path);
  const head = await env.BUCKET.head(key);
  if (!head) throw notFound(`No file at "${path}". List files with GET /{slug}/storage/files.`);
  const signed = await presign(s3Target(config), { method: "GET", key, expiresIn: expires });
  return {
    download_url: signed.url,
    url: signed.url,
    method: "GET" as const,
    path,
    size: head.size,
    content_type: head.httpMetadata?.contentType ?? null,
    expires_in: expires,
    expires_at: signed.expiresAt.toISOString(),
  };
}

export type FileEntry = { path: string; size: number; content_type: string | null; etag: string; uploaded_at: string };

/** One page of the files under `prefix`, oldest key first; `cursor` continues it. */
export async function listFiles(env: Bindings, project: Project, area: Area, opts: { prefix: string; cursor?: string; limit: number }) {
  const base = areaPrefix(project.id, area);
  const prefix = base + checkedPrefix(opts.prefix);
  let page: R2Objects;
  try {
    page = await env.BUCKET.list({ prefix, cursor: opts.cursor || undefined, limit: opts.limit, include: ["httpMetadata"] });
  } catch (cause) {
    if (opts.cursor) throw badRequest("The cursor is not valid (or has expired); start again without cursor.", "invalid_cursor");
    throw new ApiError(503, "Object storage (R2) is unavailable right now; retry in a few seconds.", { code: "storage_unavailable", cause });
  }
  const files: FileEntry[] = page.objects.map((o) => ({
    path: o.key.slice(base.length),
    size: o.size,
    content_type: o.httpMetadata?.contentType ?? null,
    etag: o.httpEtag,
    uploaded_at: o.uploaded.toISOString(),
  }));
  return { files, truncated: page.truncated, cursor: page.truncated ? page.cursor : null };
}

/** Deletes one file; 404 when there is none. */
export async function deleteFile(env: Bindings, config: EnvVars, project: Project, area: Area, path: string): Promise<void> {
  const key = objectKey(project.id, area, path);
  if (!(await env.BUCKET.head(key))) throw notFound(`No file at "${path}".`);
  await env.BUCKET.delete(key);
  await markStorageChanged(config, project.id);
}
