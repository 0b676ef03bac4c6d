import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { documentWildcardPaths } from "./wildcard-paths.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { ContentType, Expires, FileList } from "./storage.ts";
import { badRequest } from "../errors.ts";
import { LIST_LIMIT, deleteFile } from "../storage/objects.ts";
import { forgetSiteRules } from "../sites/site-cache.ts";
import { grantSiteUpload, listSiteFiles, uploadSiteFile } from "../sites/site-files.ts";

// {base_url}: POST /{slug}/files  GET /{slug}/files?path=  DELETE /{slug}/files/{path}
// The site itself is served at {site_url} (src/sites/serve-site.ts).

const UploadBody = z
  .object({
    filename: z.string().openapi({ description: "Path of the file in the site, e.g. index.html or assets/app.js", example: "index.html" }),
    content_type: ContentType,
    content: z.string().optional().openapi({ description: "The file, base64; under 5 MB decoded" }),
    use_presigned: z.boolean().optional().openapi({ description: "true: get an upload URL instead (files of 5 MB or more)" }),
    expires: Expires.optional(),
    size: z.number().int().min(0).max(5 * 1024 ** 3).optional(),
  })
  .openapi("SiteUpload");
const UploadResult = z
  .object({
    uploaded: z.boolean(),
    url: z.string().url().openapi({ description: "The file's public address" }),
    path: z.string(),
    size: z.number().optional(),
    etag: z.string().optional(),
    upload_url: z.string().url().optional(),
    method: z.literal("PUT").optional(),
    headers: z.record(z.string(), z.string()).optional(),
    expires_in: z.number().optional(),
    expires_at: z.string().optional(),
  })
  .openapi("SiteUploadResult");
const ListQuery = z.object({
  path: z.string().max(900).default("").openapi({ description: "Only files under this folder prefix, e.g. assets/" }),
  cursor: z.string().max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT.max).default(LIST_LIMIT.default),
});
const PathParams = SlugParam.extend({ path: z.string().openapi({ param: { name: "path", in: "path" }, example: "assets/app.js" }) });

const common = { tags: ["Static hosting"], security: ApiKeySecurity, middleware: [projectScope] };

export const siteRoutes = createRouter()
  .openapi(
    createRoute({ ...common, method: "post", path: "/{slug}/files", summary: "Upload a site file (base64 under 5 MB, or use_presigned)", request: { params: SlugParam, body: jsonBody(UploadBody) }, responses: { 200: json(UploadResult, "use_presigned: PUT the bytes to upload_url"), 201: json(UploadResult, "Stored"), ...errors(400, 401, 402, 404, 413) } }),
    async (c) => {
      const body = c.req.valid("json");
      const project = c.get("project")!;
      if (body.use_presigned) {
        const grant = await grantSiteUpload(c.env, c.get("config"), project, { path: body.filename, contentType: body.content_type, expires: body.expires ?? 3600, size: body.size });
        return c.json(grant, 200);
      }
      if (body.content === undefined) throw badRequest("Send content (the file in base64), or use_presigned: true for an upload URL.");
      return c.json(await uploadSiteFile(c.env, c.get("config"), project, { path: body.filename, contentBase64: body.content, contentType: body.content_type }), 201);
    },
  )
  .openapi(
    createRoute({ ...common, method: "get", path: "/{slug}/files", summary: "List site files (paginated)", request: { params: SlugParam, query: ListQuery }, responses: { 200: json(FileList, "One page of files, each with its public url"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await listSiteFiles(c.env, c.get("config"), c.get("project")!, c.req.valid("query")), 200),
  )
  .openapi(
    createRoute({ ...common, method: "delete", path: "/{slug}/files/{path{.+}}", summary: "Delete a site file", request: { params: PathParams }, responses: { 200: json(z.object({ deleted: z.boolean(), path: z.string() }), "Deleted"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { path } = c.req.valid("param");
      const project = c.get("project")!;
      await deleteFile(c.env, c.get("config"), project, "site", path);
      forgetSiteRules(project.id);
      return c.json({ deleted: true, path }, 200);
    },
  );
documentWildcardPaths(siteRoutes);
