import type { OpenAPIHono } from "@hono/zod-openapi";

/**
 * File paths contain "/", so their routes use Hono's `{path{.+}}` parameter. The OpenAPI
 * document should show a plain `{path}`: this rewrites the router's route definitions
 * (call it before the router is mounted, which copies them into the app's document).
 */
export function documentWildcardPaths(router: OpenAPIHono<any>): void {
  for (const def of router.openAPIRegistry.definitions) {
    if (def.type === "route") def.route.path = def.route.path.replace(/\{(\w+)\{[^}]*\}\}/g, "{$1}");
  }
}
