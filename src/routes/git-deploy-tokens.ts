import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { createDeployToken, listDeployTokens, revokeDeployToken } from "../git/deploy-tokens.ts";

// {base_url}: GET /{slug}/git/deploy-tokens  POST /{slug}/git/deploy-tokens  DELETE /{slug}/git/deploy-tokens/{id}

const TokenView = z.object({ id: z.number().int(), label: z.string().nullable(), created_at: z.string() }).openapi("GitDeployToken");
const CreatedToken = TokenView.extend({
  token: z.string().openapi({ description: "The git password (any user name); shown only here" }),
  read_only: z.literal(true),
}).openapi("CreatedGitDeployToken");
const NewToken = z.object({ label: z.string().trim().max(100).optional().openapi({ example: "builder" }) });
const IdParam = SlugParam.extend({ id: z.coerce.number().int().openapi({ param: { name: "id", in: "path" } }) });

export const gitDeployTokenRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/deploy-tokens", tags: ["Git"], summary: "Read-only git tokens of the repository", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(z.object({ deploy_tokens: z.array(TokenView) }), "Tokens (without their values)"), ...errors(401, 404) } }),
    async (c) => c.json({ deploy_tokens: await listDeployTokens(c.env, c.get("project")!) }, 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/git/deploy-tokens", tags: ["Git"], summary: "Create a read-only git token (clone and fetch only)", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: jsonBody(NewToken) }, responses: { 201: json(CreatedToken, "Created"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await createDeployToken(c.env, c.get("project")!, c.req.valid("json").label || null), 201),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{slug}/git/deploy-tokens/{id}", tags: ["Git"], summary: "Revoke a deploy token at once", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: IdParam }, responses: { 200: json(z.object({ deleted: z.boolean() }), "Revoked"), ...errors(401, 404) } }),
    async (c) => {
      await revokeDeployToken(c.env, c.get("project")!, c.req.valid("param").id);
      return c.json({ deleted: true }, 200);
    },
  );
