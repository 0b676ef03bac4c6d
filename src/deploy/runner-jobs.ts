import type { Bindings, EnvVars } from "../env.ts";
import type { RunnerJob } from "../../container-runner/src/protocol.ts";
import { PLANS } from "../config/plans.ts";
import { findProjectBySlug, projectDatabase } from "../projects/projects.ts";
import { findDeployment } from "./deployments.ts";
import { getStoredDeploySettings } from "./settings.ts";
import { cloneUrlWithToken } from "./clone-credentials.ts";
import type { DeployQueueMessage } from "./queue-message.ts";

/** Thrown when a job can never be handed over (its project or deployment is gone). */
export class JobGone extends Error {}

/** Where the runner sends its signed status reports. */
export function callbackUrl(config: EnvVars): string {
  return `${config.API_ROOT.replace(/\/$/, "")}/internal/runner/status`;
}

/**
 * The runner job for a queue message, built at hand-over time: the plan's limits, the
 * project's database settings and the app's own variables in the environment, and a
 * read-only token to clone the project's own repository.
 */
export async function runnerJobFor(env: Bindings, config: EnvVars, message: DeployQueueMessage): Promise<RunnerJob> {
  const base = { job_id: message.job_id, project: message.slug, deployment_id: message.deployment_id, callback_url: callbackUrl(config) };
  if (message.action !== "deploy") return { ...base, action: message.action };
  const project = await findProjectBySlug(config, message.slug);
  if (!project || project.id !== message.project_id) throw new JobGone("the project no longer exists");
  const deployment = await findDeployment(config, project.id, message.deployment_id);
  if (!deployment) throw new JobGone("the deployment no longer exists");
  const db = await projectDatabase(config, project);
  const settings = await getStoredDeploySettings(config, project.id);
  const plan = PLANS[project.plan];
  return {
    ...base,
    action: "deploy",
    repo_url: deployment.external ? deployment.repo_url : await cloneUrlWithToken(env, config, project, deployment.repo_url),
    branch: deployment.branch,
    external: deployment.external,
    limits: { memory_mb: Math.round(plan.containerRamBytes / 1024 / 1024), cpus: plan.containerCpu },
    env: {
      ...settings.env,
      DATABASE_URL: db.connection_string,
      PGHOST: db.host,
      PGPORT: String(db.port),
      PGDATABASE: db.name,
      PGUSER: db.user,
      PGPASSWORD: db.password,
      SLIPWAY_PROJECT: project.slug,
      SLIPWAY_API_URL: `${config.API_ROOT.replace(/\/$/, "")}/v1/project`,
    },
  };
}
