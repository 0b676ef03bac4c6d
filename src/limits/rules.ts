import { PLANS } from "../config/plans.ts";
import type { Project } from "../projects/projects.ts";
import type { RateRule } from "./rate-limit.ts";

/** Every rate rule of the platform, built from the plan table. */

/** SQL queries per hour, counted per project in fixed clock hours. */
export function sqlQueriesRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `sql:${project.id}`, limit: PLANS[project.plan].sqlQueriesPerHour, windowSeconds: 3600, what: `SQL queries per hour on the ${project.plan} plan` };
}

/** Key-value operations per hour, counted per project in fixed clock hours (a pipeline counts each command). */
export function kvOperationsRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `kv:${project.id}`, limit: PLANS[project.plan].kvOpsPerHour ?? 0, windowSeconds: 3600, what: `key-value operations per hour on the ${project.plan} plan` };
}
