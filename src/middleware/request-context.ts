import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import type { AppEnv } from "../env.ts";
import { loadConfig } from "../env.ts";

/**
 * Gives each request an id (echoed in `X-Request-Id` and in error bodies), checks the
 * configuration, and writes one structured log line when the response is ready.
 */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const requestId = c.req.header("x-request-id")?.slice(0, 64) || crypto.randomUUID();
  const started = Date.now();
  c.set("requestId", requestId);
  c.set("config", loadConfig(c.env as unknown as Record<string, unknown>));
  await next();
  c.header("X-Request-Id", requestId);
  console.log(
    JSON.stringify({
      request_id: requestId,
      method: c.req.method,
      route: routePath(c),
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      account: c.get("accountId") ?? null,
      project: c.get("projectSlug") ?? null,
      duration_ms: Date.now() - started,
    }),
  );
});
