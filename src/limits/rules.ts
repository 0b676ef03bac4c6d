import { PLANS } from "../config/plans.ts";
import type { Project } from "../projects/projects.ts";
import type { RateRule } from "./rate-limit.ts";

/** Every rate rule of the platform, built from the plan table. */

/** SQL queries per hour, counted per project in fixed clock hours. */
export function sqlQueriesRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `sql:${project.id}`, limit: PLANS[project.plan].sqlQueriesPerHour, windowSeconds: 3600, what: `SQL queries per hour on the ${project.plan} plan` };
}
