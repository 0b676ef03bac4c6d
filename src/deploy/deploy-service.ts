import type { Bindings, EnvVars } from "../env.ts";
import { ApiError, notFound } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import { coordinatorFor } from "./coordinator.ts";
import { chooseRepository } from "./repo-url.ts";
import { getDeploySettings, updateDeploySettings } from "./settings.ts";
import type { Deployment } from "./deployments.ts";

const DEFAULT_BRANCH = "main";

/**
 * Starts a deployment (pending) and queues it; the project's coordinator serializes it
 * with the project's other operations. The first deploy turns auto-deploy on.
 */
export async function startDeployment(
  env: Bindings,
  config: EnvVars,
  project: Project,
  input: { repo_url?: string; branch?: string; trigger: Deployment["trigger"] },
): Promise<Deployment> {
  const { repoUrl, external } = chooseRepository(config, project.slug, input.repo_url);
  const deployment = await coordinatorFor(env, project.id).deploy({ id: project.id, slug: project.slug }, { repoUrl, branch: input.branch ?? DEFAULT_BRANCH, external, trigger: input.trigger });
  await ensureDeployWebhook(config, project);
  return deployment;
}

/**
 * The interface: the first deploy registers the git webhook and auto_deploy is true from
 * then on until the user turns it off. The webhook id comes from git hosting (issue #6);
 * until that is merged, git_webhook_id stays null and only the flag is set.
 */
async function ensureDeployWebhook(config: EnvVars, project: Project): Promise<void> {
  const settings = await getDeploySettings(config, project.id);
  if (settings.git_webhook_id !== null || settings.auto_deploy) return;
  await updateDeploySettings(config, project.id, { auto_deploy: true });
}

/** stop, start or restart the current deployment (202 once queued). */
export async function controlDeployment(env: Bindings, project: Project, action: "stop" | "start" | "restart"): Promise<Deployment> {
  const result = await coordinatorFor(env, project.id).control({ id: project.id, slug: project.slug }, action);
  if (!result.ok) throw result.status === 404 ? notFound(result.detail) : new ApiError(409, result.detail, { code: "deployment_busy" });
  return result.deployment;
}

/** Destroys the project's deployment (all of its live deployments); returns their ids. */
export async function destroyDeployment(env: Bindings, project: Project): Promise<string[]> {
  const result = await coordinatorFor(env, project.id).destroy({ id: project.id, slug: project.slug });
  if (!result.ok) throw notFound(result.detail);
  return result.ids;
}
