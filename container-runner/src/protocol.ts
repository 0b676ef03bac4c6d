import { z } from "zod";

/**
 * The Worker ↔ runner contract: the jobs the Worker's queue consumer hands a runner and
 * the status reports the runner sends back. Pure (zod only) so the Worker imports it too.
 */

/** Every state a deployment can be in; see container-runner/README.md for the transitions. */
export const DeploymentStatus = z.enum(["pending", "building", "running", "failed", "stopped", "superseded", "destroyed"]);
export type DeploymentStatus = z.infer<typeof DeploymentStatus>;

/** States a deployment never leaves. */
export const FINAL_STATUSES: readonly DeploymentStatus[] = ["superseded", "destroyed"];

export const Limits = z.object({
  memory_mb: z.number().int().min(16),
  cpus: z.number().positive().max(64),
});
export type Limits = z.infer<typeof Limits>;

const Slug = z.string().regex(/^[a-z0-9](?:[a-z0-9]|-(?!-)){1,30}[a-z0-9]$/, "project must be a slug");
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "environment variable names are letters, digits and _");

const JobBase = {
  /** Unique per hand-over attempt of one queue message; repeated ids are accepted once. */
  job_id: z.string().min(1).max(128),
  project: Slug,
  deployment_id: z.string().min(1).max(64),
  /** Where the runner POSTs signed StatusReports for this job. */
  callback_url: z.string().url(),
};

export const DeployJob = z.object({
  ...JobBase,
  action: z.literal("deploy"),
  repo_url: z.string().min(1).max(2048),
  branch: z.string().min(1).max(255).regex(/^[^\s~^:?*[\\]+$/, "branch is not a valid git ref name"),
  /** An outside repository: https only, public addresses only (checked again by the runner). */
  external: z.boolean().default(false),
  env: z.record(EnvName, z.string()).default({}),
  limits: Limits,
});
export type DeployJob = z.infer<typeof DeployJob>;

export const ControlJob = z.object({
  ...JobBase,
  action: z.enum(["stop", "start", "restart", "destroy"]),
});
export type ControlJob = z.infer<typeof ControlJob>;

export const RunnerJob = z.discriminatedUnion("action", [DeployJob, ControlJob]);
export type RunnerJob = z.infer<typeof RunnerJob>;

export const StatusReport = z.object({
  deployment_id: z.string(),
  project: z.string(),
  status: DeploymentStatus,
  /** Why (for failed), or what happened, in words for the user. */
  detail: z.string().max(2000).optional(),
  commit: z.string().optional(),
  stack: z.string().optional(),
  url: z.string().optional(),
  /** The job that caused this change, when one did (a crash has none). */
  job_id: z.string().optional(),
  /** Runner clock, ISO 8601; with `seq` it orders reports of one deployment. */
  at: z.string(),
  seq: z.number().int().nonnegative(),
});
export type StatusReport = z.infer<typeof StatusReport>;
