import type { EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import type { DeploymentStatus, StatusReport } from "../../container-runner/src/protocol.ts";

/** A deployments row (see migrations/0007_deployments.sql). */
export type Deployment = {
  id: string;
  project_id: string;
  status: DeploymentStatus;
  trigger: "manual" | "webhook";
  repo_url: string;
  branch: string;
  external: boolean;
  source_commit: string | null;
  commit_sha: string | null;
  stack: string | null;
  detail: string | null;
  last_report_seq: string;
  created_at: string;
  updated_at: string;
};

/** States a deployment no longer leaves; reports for it are ignored. */
export const ENDED: DeploymentStatus[] = ["superseded", "destroyed"];
/** States in which the runner still owes a report. */
export const IN_PROGRESS: DeploymentStatus[] = ["pending", "building"];

export type NewDeployment = { trigger: Deployment["trigger"]; repoUrl: string; branch: string; external: boolean; sourceCommit?: string };

export async function createDeployment(config: EnvVars, projectId: string, input: NewDeployment): Promise<Deployment> {
  const rows = await controlPlane(config).query(
    `insert into deployments (project_id, trigger, repo_url, branch, external, source_commit) values ($1, $2, $3, $4, $5, $6) returning *`,
    [projectId, input.trigger, input.repoUrl, input.branch, input.external, input.sourceCommit ?? null],
  );
  return rows[0] as Deployment;
}

/** Whether any deployment was created at or after `time`: it will build a tip that includes a push made then. */
export async function deployedSince(config: EnvVars, projectId: string, time: string): Promise<boolean> {
  const rows = await controlPlane(config).query(`select 1 from deployments where project_id = $1 and created_at >= $2::timestamptz limit 1`, [projectId, time]);
  return rows.length > 0;
}

/** The deployment already started for this commit, if any (a file push with deploy true, then its push event). */
export async function deploymentOfCommit(config: EnvVars, projectId: string, commit: string): Promise<Deployment | null> {
  const rows = await controlPlane(config).query(`select * from deployments where project_id = $1 and source_commit = $2 order by created_at limit 1`, [projectId, commit]);
  return (rows[0] as Deployment) ?? null;
}

export async function findDeployment(config: EnvVars, projectId: string, id: string): Promise<Deployment | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const rows = await controlPlane(config).query(`select * from deployments where project_id = $1 and id = $2`, [projectId, id]);
  return (rows[0] as Deployment) ?? null;
}

/** The project's newest deployment: the one status, logs and stop/start/restart act on. */
export async function currentDeployment(config: EnvVars, projectId: string): Promise<Deployment | null> {
  const rows = await controlPlane(config).query(`select * from deployments where project_id = $1 and status <> 'superseded' order by created_at desc limit 1`, [projectId]);
  return (rows[0] as Deployment) ?? null;
}

/** Newest first. */
export async function listDeployments(config: EnvVars, projectId: string, limit: number): Promise<Deployment[]> {
  return (await controlPlane(config).query(`select * from deployments where project_id = $1 order by created_at desc limit $2`, [projectId, limit])) as Deployment[];
}

/** Sets a deployment's state from the Worker's side (superseded, destroyed, failed by a timeout). */
export async function setDeploymentStatus(config: EnvVars, id: string, status: DeploymentStatus, detail: string | null, onlyFrom?: DeploymentStatus[]): Promise<boolean> {
  const rows = await controlPlane(config).query(
    `update deployments set status = $2, detail = $3, updated_at = now()
     where id = $1 and status <> all($4::text[]) and ($5::text[] is null or status = any($5::text[])) returning id`,
    [id, status, detail, ENDED, onlyFrom ?? null],
  );
  return rows.length > 0;
}

/** Marks every deployment of the project that has not ended as destroyed; returns their ids. */
export async function destroyDeployments(config: EnvVars, projectId: string): Promise<string[]> {
  const rows = await controlPlane(config).query(
    `update deployments set status = 'destroyed', detail = 'Destroyed on request.', updated_at = now()
     where project_id = $1 and status <> all($2::text[]) returning id`,
    [projectId, ENDED],
  );
  return rows.map((r) => r.id as string);
}

/**
 * Applies a runner's report unless the deployment has ended or a newer report was applied
 * already. Returns the updated row, or null when the report was ignored.
 */
export async function applyReport(config: EnvVars, projectId: string, report: StatusReport): Promise<Deployment | null> {
  const rows = await controlPlane(config).query(
    `update deployments set status = $3, detail = $4, commit_sha = coalesce($5, commit_sha), stack = coalesce($6, stack),
       last_report_seq = $7, updated_at = now()
     where id = $1 and project_id = $2 and last_report_seq < $7 and status <> all($8::text[]) returning *`,
    [report.deployment_id, projectId, report.status, report.detail ?? null, report.commit ?? null, report.stack ?? null, report.seq, ENDED],
  );
  return (rows[0] as Deployment) ?? null;
}

/** Ids of the project's deployments that are still owed a report (for the watchdog). */
export async function deploymentsInProgress(config: EnvVars, projectId: string): Promise<string[]> {
  const rows = await controlPlane(config).query(`select id from deployments where project_id = $1 and status = any($2::text[])`, [projectId, IN_PROGRESS]);
  return rows.map((r) => r.id as string);
}
