import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { findProjectForAccount } from "../projects/projects.ts";
import { notFound } from "../errors.ts";
import { SLUG_PATTERN } from "../projects/slug.ts";

/** Loads the caller's project named by `{slug}`; any other project is a 404. */
export const projectScope = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("slug") ?? "";
  if (!SLUG_PATTERN.test(slug)) throw notFound(`Project "${slug}" not found.`);
  const project = await findProjectForAccount(c.get("config"), c.get("accountId")!, slug);
  c.set("project", project);
  c.set("projectSlug", project.slug);
  await next();
});
