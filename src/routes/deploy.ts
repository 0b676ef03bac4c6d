import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { notFound } from "../errors.ts";
import { startDeployment, controlDeployment, destroyDeployment, deploySettings, changeDeploySettings } from "../deploy/deploy-service.ts";
import { currentDeployment, findDeployment, listDeployments } from "../deploy/deployments.ts";
import { deploymentView } from "../deploy/deployment-view.ts";
import { fetchRunnerLogs } from "../deploy/runner-client.ts";

// {base_url}: POST /{slug}/deploy  GET /{slug}/deploy/status  GET /{slug}/deploy/history
//   GET /{slug}/deploy/logs  DELETE /{slug}/deploy  POST /{slug}/restart|stop|start
//   GET /{slug}/settings  PATCH /{slug}/settings

const DeploymentView = z
  .object({
    deployment_id: z.string(),
    status: z.enum(["pending", "building", "running", "failed", "stopped", "superseded", "destroyed"]),
    url: z.string().url(),
    trigger: z.enum(["manual", "webhook"]),
    repo_url: z.string(),
    branch: z.string(),
    commit: z.string().nullable(),
    stack: z.string().nullable(),
    detail: z.string().nullable().openapi({ description: "why it failed, or what happened last" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Deployment");
const DeployBody = z.object({
  repo_url: z.string().max(2048).optional().openapi({ description: "defaults to the project's own repository; outside repositories must be public https URLs" }),
  branch: z.string().min(1).max(255).regex(/^[^\s~^:?*[\\]+$/, "branch is not a valid git branch name").optional().openapi({ description: "defaults to main" }),
});
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "environment variable names are letters, digits and _");
const RESERVED_ENV = ["PORT", "DATABASE_URL", "PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSWORD"];
const SettingsView = z
  .object({
    auto_deploy: z.boolean(),
    git_webhook_id: z.number().int().nullable(),
    env: z.array(z.string()).openapi({ description: "names of the app's environment variables (values are secret and not shown)" }),
  })
  .openapi("DeploySettings");
const SettingsPatch = z.object({
  auto_deploy: z.boolean().optional(),
  env: z
    .record(EnvName, z.string().max(32_768).nullable())
    .refine((env) => Object.keys(env).every((k) => !RESERVED_ENV.includes(k)), `${RESERVED_ENV.join(", ")} are set by the platform`)
    .refine((env) => Object.keys(env).length <= 100, "at most 100 variables")
    .optional()
    .openapi({ description: "variables to set; null removes one. Applied on the next deploy." }),
});
const ControlAnswer = z.object({ deployment_id: z.string(), action: z.string(), status: z.string(), accepted: z.boolean() }).openapi("DeploymentControl");

const control = (action: "stop" | "start" | "restart", summary: string) =>
  createRoute({ method: "post", path: `/{slug}/${action}`, tags: ["Deployments"], summary, security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 202: json(ControlAnswer, "Queued; poll /deploy/status"), ...errors(401, 404, 409) } });

export const deployRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/{slug}/deploy", tags: ["Deployments"], summary: "Deploy the app from git", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: { required: false, content: { "application/json": { schema: DeployBody } } } }, responses: { 202: json(DeploymentView, "Deployment started (pending); poll /deploy/status"), ...errors(400, 401, 404) } }),
    async (c) => {
      const body = (c.req.valid("json") as z.infer<typeof DeployBody> | undefined) ?? {};
      const project = c.get("project")!;
      const deployment = await startDeployment(c.env, c.get("config"), project, { ...body, trigger: "manual" });
      return c.json(deploymentView(c.get("config"), project.slug, deployment), 202);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/deploy/status", tags: ["Deployments"], summary: "Status of the current deployment", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(DeploymentView, "The newest deployment"), ...errors(401, 404) } }),
    async (c) => {
      const project = c.get("project")!;
      const current = await currentDeployment(c.get("config"), project.id);
      if (!current) throw notFound(`Project "${project.slug}" has no deployment yet. Deploy with POST /${project.slug}/deploy.`);
      return c.json(deploymentView(c.get("config"), project.slug, current), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/deploy/history", tags: ["Deployments"], summary: "Deployments, newest first, each manual or webhook-triggered", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) }) }, responses: { 200: json(z.object({ deployments: z.array(DeploymentView) }), "Newest first"), ...errors(400, 401, 404) } }),
    async (c) => {
      const project = c.get("project")!;
      const rows = await listDeployments(c.get("config"), project.id, c.req.valid("query").limit);
      return c.json({ deployments: rows.map((d) => deploymentView(c.get("config"), project.slug, d)) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{slug}/deploy/logs", tags: ["Deployments"], summary: "Build and runtime logs (follow=true streams them as text)", security: ApiKeySecurity, middleware: [projectScope] as const,
      request: { params: SlugParam, query: z.object({ deployment_id: z.string().optional().openapi({ description: "defaults to the current deployment" }), follow: z.enum(["true", "false", "1", "0"]).optional() }) },
      responses: { 200: { description: "JSON {deployment_id, status, logs}; with follow, text/plain streamed until the deployment settles", content: { "application/json": { schema: z.object({ deployment_id: z.string(), status: z.string(), logs: z.string() }) }, "text/plain": { schema: z.string() } } }, ...errors(401, 404) },
    }),
    async (c) => {
      const project = c.get("project")!;
      const config = c.get("config");
      const { deployment_id, follow } = c.req.valid("query");
      const deployment = deployment_id ? await findDeployment(config, project.id, deployment_id) : await currentDeployment(config, project.id);
      if (!deployment) throw notFound(deployment_id ? `Deployment "${deployment_id}" not found in project "${project.slug}".` : `Project "${project.slug}" has no deployment yet.`);
      const following = follow === "true" || follow === "1";
      const res = await fetchRunnerLogs(config, deployment.id, following);
      if (following) {
        // The runner's stream passes through as it comes; it ends when the deployment's log closes.
        return c.body(res?.body ?? "", 200, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" }) as never;
      }
      const logs = res ? await res.text() : "";
      return c.json({ deployment_id: deployment.id, status: deployment.status, logs }, 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{slug}/deploy", tags: ["Deployments"], summary: "Destroy the deployment", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(z.object({ destroyed: z.boolean(), deployment_ids: z.array(z.string()) }), "Destroyed; the app stops serving"), ...errors(401, 404) } }),
    async (c) => c.json({ destroyed: true, deployment_ids: await destroyDeployment(c.env, c.get("project")!) }, 200),
  )
  .openapi(control("restart", "Restart the running app"), async (c) => c.json(controlAnswer(await controlDeployment(c.env, c.get("project")!, "restart"), "restart"), 202))
  .openapi(control("stop", "Stop the running app"), async (c) => c.json(controlAnswer(await controlDeployment(c.env, c.get("project")!, "stop"), "stop"), 202))
  .openapi(control("start", "Start a stopped app"), async (c) => c.json(controlAnswer(await controlDeployment(c.env, c.get("project")!, "start"), "start"), 202))
  .openapi(
    createRoute({ method: "get", path: "/{slug}/settings", tags: ["Deployments"], summary: "Deployment settings", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(SettingsView, "Settings"), ...errors(401, 404) } }),
    async (c) => c.json(settingsView(await deploySettings(c.env, c.get("config"), c.get("project")!)), 200),
  )
  .openapi(
    createRoute({ method: "patch", path: "/{slug}/settings", tags: ["Deployments"], summary: "Change deployment settings", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: { required: true, content: { "application/json": { schema: SettingsPatch } } } }, responses: { 200: json(SettingsView, "Settings after the change"), ...errors(400, 401, 404) } }),
    async (c) => c.json(settingsView(await changeDeploySettings(c.env, c.get("config"), c.get("project")!, c.req.valid("json"))), 200),
  );

function controlAnswer(d: { id: string; status: string }, action: string) {
  return { deployment_id: d.id, action, status: d.status, accepted: true };
}

function settingsView(s: { auto_deploy: boolean; git_webhook_id: number | null; env: Record<string, string> }) {
  return { auto_deploy: s.auto_deploy, git_webhook_id: s.git_webhook_id, env: Object.keys(s.env).sort() };
}
