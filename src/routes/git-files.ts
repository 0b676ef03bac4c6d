import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { badRequest } from "../errors.ts";
import { commitFile } from "../git/commit-file.ts";
import { listTree, log, readFile, refList } from "../git/browse.ts";
import { RepoStore } from "../git/repo-store.ts";
import { registerPlatformWebhook } from "../git/webhooks.ts";
import { compactInBackground } from "../git/compact.ts";
import { deployPushedCommit } from "../deploy/deploy-service.ts";

// {base_url}: POST /{slug}/git/files  GET /{slug}/git/refs  GET /{slug}/git/tree
//             GET /{slug}/git/file  GET /{slug}/git/log

/** Largest file committed through the API (decoded), and read back through it. */
export const MAX_API_FILE_BYTES = 5 * 1024 * 1024;

const FilePush = z.object({
  path: z.string().min(1).max(4096).openapi({ example: "src/index.js" }),
  content: z.string().openapi({ description: `The file's bytes in base64, at most ${MAX_API_FILE_BYTES} bytes decoded` }),
  message: z.string().trim().min(1, "message is required").max(10_000),
  branch: z.string().min(1).max(200).optional().openapi({ description: "Branch to commit on; default main (created when absent)" }),
  deploy: z.boolean().optional().openapi({ description: "Also deploy the branch after this commit (see /{slug}/deploy/status)" }),
});
const Deploy = z.object({ status: z.string(), deployment_id: z.string().nullable(), url: z.string().nullable(), detail: z.string().optional() }).openapi("GitPushDeploy");
const PushResult = z
  .object({ pushed: z.boolean(), commit: z.string(), branch: z.string(), previous_commit: z.string().nullable(), path: z.string(), blob: z.string(), deploy: Deploy.optional() })
  .openapi("GitPushResult");
const RefQuery = z.object({ ref: z.string().min(1).max(255).optional().openapi({ description: "Branch, tag or commit id; default main" }) });
const PathQuery = RefQuery.extend({ path: z.string().max(4096).optional() });
const LogQuery = RefQuery.extend({ limit: z.coerce.number().int().min(1).max(100).optional().openapi({ description: "1-100, default 20" }) });
const TreeEntry = z.object({ name: z.string(), path: z.string(), type: z.string(), mode: z.string(), oid: z.string() });
const Tree = z.object({ ref: z.string(), commit: z.string(), path: z.string(), entries: z.array(TreeEntry) }).openapi("GitTree");
const FileView = z.object({ ref: z.string(), commit: z.string(), path: z.string(), oid: z.string(), mode: z.string(), size: z.number(), content: z.string() }).openapi("GitFile");
const Person = z.object({ name: z.string(), email: z.string(), date: z.string().nullable() });
const Log = z
  .object({ ref: z.string(), commits: z.array(z.object({ id: z.string(), parents: z.array(z.string()), author: Person, committer: Person, message: z.string() })) })
  .openapi("GitLog");
const Refs = z
  .object({ head: z.string(), branches: z.array(z.object({ name: z.string(), commit: z.string() })), tags: z.array(z.object({ name: z.string(), oid: z.string(), commit: z.string() })) })
  .openapi("GitRefs");

function decodeBase64(content: string): Uint8Array {
  const clean = content.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) throw badRequest("content must be base64.", "invalid_content");
  const bin = atob(clean);
  if (bin.length > MAX_API_FILE_BYTES) throw badRequest(`content is ${bin.length} bytes; files pushed through the API are limited to ${MAX_API_FILE_BYTES} bytes. Use git push for larger files.`, "file_too_large");
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

const openStore = (c: { env: ConstructorParameters<typeof RepoStore>[0] }, project: { id: string; slug: string }) => new RepoStore(c.env, project.id, project.slug).open();

export const gitFileRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/{slug}/git/files", tags: ["Git"], summary: "Commit one file to the project's repository", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: jsonBody(FilePush) }, responses: { 201: json(PushResult, "Committed"), ...errors(400, 401, 404, 409, 503) } }),
    async (c) => {
      const body = c.req.valid("json");
      const account = c.get("account")!;
      const project = c.get("project")!;
      const content = decodeBase64(body.content);
      const result = await commitFile(c.env, project, { path: body.path, content, message: body.message, branch: body.branch ?? "main", author: { name: account.name ?? account.email, email: account.email } }, `api:${account.id}`);
      // The first file push registers the platform's own webhook, so later pushes can deploy.
      await registerPlatformWebhook(c.env, project);
      c.executionCtx.waitUntil(compactInBackground(c.env, project));
      const deploy = body.deploy ? await deployPushedCommit(c.env, c.get("config"), project, result) : undefined;
      return c.json({ pushed: true, ...result, ...(deploy ? { deploy } : {}) }, 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/refs", tags: ["Git"], summary: "Branches, tags and HEAD", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(Refs, "Refs"), ...errors(401, 404, 503) } }),
    async (c) => c.json(refList(await openStore(c, c.get("project")!)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/tree", tags: ["Git"], summary: "List a directory at a ref", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, query: PathQuery }, responses: { 200: json(Tree, "Entries"), ...errors(401, 404, 503) } }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await listTree(await openStore(c, c.get("project")!), q.ref ?? "main", q.path ?? ""), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/file", tags: ["Git"], summary: "Read a file at a ref (base64)", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, query: PathQuery }, responses: { 200: json(FileView, "The file"), ...errors(400, 401, 404, 503) } }),
    async (c) => {
      const q = c.req.valid("query");
      if (!q.path) throw badRequest("path is required, e.g. ?path=README.md");
      return c.json(await readFile(await openStore(c, c.get("project")!), q.ref ?? "main", q.path, MAX_API_FILE_BYTES), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/log", tags: ["Git"], summary: "Commits reachable from a ref, newest first", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, query: LogQuery }, responses: { 200: json(Log, "Commits"), ...errors(401, 404, 503) } }),
    async (c) => {
      const q = c.req.valid("query");
      return c.json(await log(await openStore(c, c.get("project")!), q.ref ?? "main", q.limit ?? 20), 200);
    },
  );
