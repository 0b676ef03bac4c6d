import { PLANS } from "../config/plans.ts";
import type { Project } from "../projects/projects.ts";
import type { RateRule } from "./rate-limit.ts";

/** Every rate rule of the platform, built from the plan table. */

/** SQL queries per hour, counted per project in fixed clock hours. */
export function sqlQueriesRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `sql:${project.id}`, limit: PLANS[project.plan].sqlQueriesPerHour, windowSeconds: 3600, what: `SQL queries per hour on the ${project.plan} plan` };
}

/** Failed end-user logins per email address, per project (brute force on one account). */
export function loginFailuresPerEmailRule(project: Pick<Project, "id">, emailHash: string): RateRule {
  return { scope: `auth-login-email:${project.id}:${emailHash}`, limit: 10, windowSeconds: 900, what: "failed sign-ins for this email in 15 minutes" };
}

/** Failed end-user logins per client IP, per project (guessing across accounts). */
export function loginFailuresPerIpRule(project: Pick<Project, "id">, ip: string): RateRule {
  return { scope: `auth-login-ip:${project.id}:${ip}`, limit: 100, windowSeconds: 900, what: "failed sign-ins from this address in 15 minutes" };
}

/** Magic-link emails per project per UTC day, from the plan. */
export function magicLinksRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `auth-magic-links:${project.id}`, limit: PLANS[project.plan].magicLinksPerDay, windowSeconds: 86_400, what: `magic links per day on the ${project.plan} plan` };
}

/** Password-reset emails per address, per project (no mailbox flooding). */
export function resetEmailsRule(project: Pick<Project, "id">, emailHash: string): RateRule {
  return { scope: `auth-reset-email:${project.id}:${emailHash}`, limit: 5, windowSeconds: 3600, what: "password-reset emails for this address per hour" };
}

/** Key-value operations per hour, counted per project in fixed clock hours (a pipeline counts each command). */
export function kvOperationsRule(project: Pick<Project, "id" | "plan">): RateRule {
  return { scope: `kv:${project.id}`, limit: PLANS[project.plan].kvOpsPerHour ?? 0, windowSeconds: 3600, what: `key-value operations per hour on the ${project.plan} plan` };
}
