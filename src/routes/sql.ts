import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { runProjectSql, projectDatabaseUsage } from "../sql/run-sql.ts";
import { SQL_LIMITS } from "../sql/limits.ts";
import { SlugParam } from "./projects.ts";
import { enforceRateLimit } from "../limits/rate-limit.ts";
import { sqlQueriesRule } from "../limits/rules.ts";

// {base_url}: POST /{slug}/sql  GET /{slug}/database/usage

const SqlBody = z.object({
  query: z.string().min(1, "query is required").max(SQL_LIMITS.maxQueryBytes, `query must be at most ${SQL_LIMITS.maxQueryBytes} characters`),
  params: z.array(z.unknown()).max(SQL_LIMITS.maxParams).optional().openapi({ description: "Values for $1, $2, …; with params the query must be one statement" }),
});
const SqlResult = z
  .object({
    rows: z.array(z.record(z.string(), z.unknown())),
    row_count: z.number().int(),
    columns: z.array(z.string()),
    command: z.string(),
    truncated: z.boolean().optional().openapi({ description: `true when rows were cut at ${SQL_LIMITS.maxRows} rows or ${SQL_LIMITS.maxResultBytes} bytes` }),
  })
  .openapi("SqlResult");
const Usage = z.object({ size_bytes: z.number(), limit_bytes: z.number(), usage_percent: z.number(), plan: z.string() }).openapi("DatabaseUsage");

export const sqlRoutes = createRouter()
  .openapi(
    createRoute({ method: "post", path: "/{slug}/sql", tags: ["SQL"], summary: "Run SQL on the project's database", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, body: jsonBody(SqlBody) }, responses: { 200: json(SqlResult, "The (last) statement's result"), ...errors(400, 401, 402, 404, 429, 503) } }),
    async (c) => {
      const { query, params } = c.req.valid("json");
      const project = c.get("project")!;
      await enforceRateLimit(c, sqlQueriesRule(project));
      return c.json(await runProjectSql(c.get("config"), project, query, params), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{slug}/database/usage", tags: ["SQL"], summary: "Database size against the plan limit", security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam }, responses: { 200: json(Usage, "Measured now"), ...errors(401, 404, 503) } }),
    async (c) => c.json(await projectDatabaseUsage(c.get("config"), c.get("project")!), 200),
  );
