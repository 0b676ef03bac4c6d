import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { addWebhook, listWebhooks, removeWebhook } from "../git/webhooks.ts";

// {base_url}: GET /{slug}/git/webhooks  POST /{slug}/git/webhooks  DELETE /{slug}/git/webhooks/{id}

const WebhookView = z
  .object({ id: z.number().int(), kind: z.enum(["platform", "user"]), url: z.string().nullable(), created_at: z.string() })
  .openapi("GitWebhook");
const CreatedWebhook = WebhookView.extend({ secret: z.string().openapi({ description: "Signs deliveries (X-Hub-Signature-256); shown only here" }) }).openapi("CreatedGitWebhook");
const NewWebhook = z.object({
  url: z.string().min(1).max(2048).openapi({ example: "https://example.com/hooks/git" }),
  secret: z.string().min(16, "secret must be at least 16 characters").max(256).optional().openapi({ description: "Generated when absent" }),
});
const IdParam = SlugParam.extend({ id: z.coerce.number().int().openapi({ param: { name: "id", in: "path" } }) });

export const gitWebhookRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/{slug}/git/webhooks", tags: ["Git"], summary: "Webhooks that receive push events", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(z.object({ webhooks: z.array(WebhookView) }), "Webhooks"), ...errors(401, 404) } }),
    async (c) => c.json({ webhooks: await listWebhooks(c.env, c.get("project")!) }, 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{slug}/git/webhooks", tags: ["Git"], summary: "Register a webhook for push events", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: jsonBody(NewWebhook) }, responses: { 201: json(CreatedWebhook, "Registered"), ...errors(400, 401, 404) } }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(await addWebhook(c.env, c.get("project")!, body.url, body.secret), 201);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{slug}/git/webhooks/{id}", tags: ["Git"], summary: "Remove a webhook", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: IdParam }, responses: { 200: json(z.object({ deleted: z.boolean() }), "Removed"), ...errors(401, 404) } }),
    async (c) => {
      await removeWebhook(c.env, c.get("project")!, c.req.valid("param").id);
      return c.json({ deleted: true }, 200);
    },
  );
