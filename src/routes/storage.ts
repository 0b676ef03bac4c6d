import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { documentWildcardPaths } from "./wildcard-paths.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { EXPIRES, LIST_LIMIT, deleteFile, grantDownload, grantUpload, listFiles } from "../storage/objects.ts";
import { storageUsage } from "../storage/usage.ts";

// {base_url}: POST /{slug}/storage/upload  GET /{slug}/storage/download/{path}
//             GET /{slug}/storage/files?prefix=  DELETE /{slug}/storage/files/{path}
//             GET /{slug}/storage/usage

/** A media type such as image/png or text/plain; charset=utf-8. */
export const ContentType = z
  .string()
  .max(255)
  .regex(/^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\u0000-\u001f]*"|[\w.+-]+))*$/, "content_type must be a media type such as image/png")
  .openapi({ example: "image/png" });
export const Expires = z.coerce
  .number()
  .int("expires must be a whole number of seconds")
  .min(EXPIRES.min, `expires must be at least ${EXPIRES.min} second`)
  .max(EXPIRES.max, `expires must be at most ${EXPIRES.max} seconds (7 days)`)
  .default(EXPIRES.default)
  .openapi({ description: `Seconds the URL stays valid: ${EXPIRES.min}–${EXPIRES.max}, default ${EXPIRES.default}` });

const UploadBody = z.object({
  filename: z.string().openapi({ description: "The object's path inside the project's storage, e.g. photos/cat.png", example: "photos/cat.png" }),
  content_type: ContentType,
  expires: Expires,
  size: z.number().int().min(0).max(5 * 1024 ** 3).optional().openapi({ description: "Bytes you will upload; when given it is signed (Content-Length must match) and checked against the storage limit" }),
});
const UploadGrant = z
  .object({
    upload_url: z.string().url(),
    method: z.literal("PUT"),
    path: z.string(),
    headers: z.record(z.string(), z.string()).openapi({ description: "Send these headers with the PUT, exactly" }),
    expires_in: z.number().int(),
    expires_at: z.string(),
  })
  .openapi("PresignedUpload");
const DownloadGrant = z
  .object({ download_url: z.string().url(), url: z.string().url(), method: z.literal("GET"), path: z.string(), size: z.number(), content_type: z.string().nullable(), expires_in: z.number(), expires_at: z.string() })
  .openapi("PresignedDownload");
export const FileList = z
  .object({
    files: z.array(z.object({ path: z.string(), size: z.number(), content_type: z.string().nullable(), etag: z.string(), uploaded_at: z.string() })),
    truncated: z.boolean(),
    cursor: z.string().nullable().openapi({ description: "Pass as ?cursor= to get the next page; null on the last page" }),
  })
  .openapi("FileList");
const ListQuery = z.object({
  prefix: z.string().max(900).default(""),
  cursor: z.string().max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT.max).default(LIST_LIMIT.default),
});
const PathParams = SlugParam.extend({ path: z.string().openapi({ param: { name: "path", in: "path" }, example: "photos/cat.png" }) });
const StorageUsage = z.object({ size_bytes: z.number(), object_count: z.number(), limit_bytes: z.number(), usage_percent: z.number(), plan: z.string() }).openapi("StorageUsage");

const common = { tags: ["Object storage"], security: ApiKeySecurity, middleware: [projectScope] };

export const storageRoutes = createRouter()
  .openapi(
    createRoute({ ...common, method: "post", path: "/{slug}/storage/upload", summary: "Presigned upload URL", request: { params: SlugParam, body: jsonBody(UploadBody) }, responses: { 200: json(UploadGrant, "PUT the bytes to upload_url with the given headers"), ...errors(400, 401, 402, 404) } }),
    async (c) => {
      const body = c.req.valid("json");
      const grant = await grantUpload(c.env, c.get("config"), c.get("project")!, "objects", { path: body.filename, contentType: body.content_type, expires: body.expires, size: body.size });
      return c.json(grant, 200);
    },
  )
  .openapi(
    createRoute({ ...common, method: "get", path: "/{slug}/storage/download/{path{.+}}", summary: "Presigned download URL", request: { params: PathParams, query: z.object({ expires: Expires }) }, responses: { 200: json(DownloadGrant, "GET download_url"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await grantDownload(c.env, c.get("config"), c.get("project")!, c.req.valid("param").path, c.req.valid("query").expires), 200),
  )
  .openapi(
    createRoute({ ...common, method: "get", path: "/{slug}/storage/files", summary: "List files (paginated)", request: { params: SlugParam, query: ListQuery }, responses: { 200: json(FileList, "One page of files"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await listFiles(c.env, c.get("project")!, "objects", c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({ ...common, method: "delete", path: "/{slug}/storage/files/{path{.+}}", summary: "Delete a file", request: { params: PathParams }, responses: { 200: json(z.object({ deleted: z.boolean(), path: z.string() }), "Deleted"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { path } = c.req.valid("param");
      await deleteFile(c.env, c.get("config"), c.get("project")!, "objects", path);
      return c.json({ deleted: true, path }, 200);
    },
  )
  .openapi(
    createRoute({ ...common, method: "get", path: "/{slug}/storage/usage", summary: "Storage used against the plan limit (objects and site)", request: { params: SlugParam }, responses: { 200: json(StorageUsage, "Measured now"), ...errors(401, 404) } }),
    async (c) => c.json(await storageUsage(c.env, c.get("config"), c.get("project")!, true), 200),
  );
documentWildcardPaths(storageRoutes);
