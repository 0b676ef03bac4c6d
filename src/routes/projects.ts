import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { createProject, listProjects, projectDatabase, projectView } from "../projects/projects.ts";
import { PLANS } from "../config/plans.ts";
import { WANTED_EXTENSIONS } from "../projects/provisioner.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { authSummary } from "../auth/auth-settings.ts";

// {base_url}: GET /projects  POST /projects  GET /{slug}/info  GET /{slug}/credentials

const DatabaseRef = z.object({ name: z.string(), host: z.string(), port: z.number().int(), user: z.string() });
const ProjectSummary = z
  .object({
    id: z.string().uuid(), name: z.string(), slug: z.string(), plan: z.string(), status: z.string(),
    database: DatabaseRef, git_repo_url: z.string().url(), site_url: z.string().url(), created_at: z.string(), updated_at: z.string(),
  })
  .openapi("Project");
const CreatedProject = ProjectSummary.extend({ database: DatabaseRef.extend({ password: z.string() }) }).openapi("CreatedProject");
const ProjectInfo = ProjectSummary.extend({
  extensions: z.object({ installed: z.array(z.string()), unavailable: z.array(z.string()) }),
  limits: z.object({ database_bytes: z.number(), storage_bytes: z.number(), sql_queries_per_hour: z.number(), key_value_bytes: z.number().nullable() }),
  auth: z.object({ publishable_key: z.string(), jwks_url: z.string().url(), issuer: z.string().url() }).openapi({ description: "End-user auth: the browser-safe key of the project's app and where its tokens are verified" }),
}).openapi("ProjectInfo");
const CredentialsView = z
  .object({ connection_string: z.string(), host: z.string(), port: z.number().int(), database: z.string(), user: z.string(), password: z.string(), sslmode: z.string() })
  .openapi("DatabaseCredentials");
const CreateProjectBody = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  slug: z.string().optional().openapi({ description: "3-32 lowercase letters, digits and single hyphens; generated from name when absent" }),
});
const SlugParam = z.object({ slug: z.string().openapi({ param: { name: "slug", in: "path" }, example: "my-app" }) });

export const projectRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/projects", tags: ["Projects"], summary: "List your projects", security: ApiKeySecurity, responses: { 200: json(z.object({ projects: z.array(ProjectSummary) }), "Your projects, oldest first"), ...errors(401) } }),
    async (c) => {
      const config = c.get("config");
      const projects = await listProjects(config, c.get("accountId")!);
      return c.json({ projects: projects.map((p) => projectView(config, p)) }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/projects", tags: ["Projects"], summary: "Create a project with its own PostgreSQL database", security: ApiKeySecurity, request: { body: jsonBody(CreateProjectBody) }, responses: { 201: json(CreatedProject, "The project; the database password is shown here and at /credentials"), ...errors(400, 401, 402, 409, 503) } }),
    async (c) => {
      const config = c.get("config");
      const { project, database } = await createProject(config, c.get("account")!, c.req.valid("json"));
      c.set("projectSlug", project.slug);
      const view = projectView(config, project);
      return c.json({ ...view, database: { ...view.database, password: database.password } }, 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/info", tags: ["Projects"], summary: "Project details", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(ProjectInfo, "Plan, status, dates, database, extensions and limits"), ...errors(401, 404) } }),
    async (c) => {
      const project = c.get("project")!;
      const plan = PLANS[project.plan];
      return c.json(
        {
          ...projectView(c.get("config"), project),
          extensions: { installed: project.extensions, unavailable: WANTED_EXTENSIONS.filter((e) => !project.extensions.includes(e)) },
          limits: { database_bytes: project.db_limit_bytes === null ? plan.databaseBytes : Number(project.db_limit_bytes), storage_bytes: plan.storageBytes, sql_queries_per_hour: plan.sqlQueriesPerHour, key_value_bytes: plan.kvBytes },
          auth: await authSummary(c.get("config"), project),
        },
        200,
      );
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/credentials", tags: ["Projects"], summary: "Database connection string and credentials", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(CredentialsView, "Works with psql as printed"), ...errors(401, 404) } }),
    async (c) => {
      const db = await projectDatabase(c.get("config"), c.get("project")!);
      const sslmode = c.get("config").NEON_LOCAL_PROXY ? "disable" : "require";
      return c.json(
        { connection_string: sslmode === "require" ? `${db.connection_string}?sslmode=require` : db.connection_string, host: db.host, port: db.port, database: db.name, user: db.user, password: db.password, sslmode },
        200,
      );
    },
  );

export { SlugParam };
