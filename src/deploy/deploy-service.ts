import type { Bindings, EnvVars } from "../env.ts";
import { ApiError, notFound } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import { coordinatorFor } from "./coordinator.ts";
import { chooseRepository } from "./repo-url.ts";
import { effectiveSettings, getStoredDeploySettings, updateDeploySettings, type DeploySettings } from "./settings.ts";
import { ensurePlatformWebhook, platformWebhookIdOf } from "./git-hooks.ts";
import { currentDeployment, deployedSince, type Deployment } from "./deployments.ts";
import { appUrl } from "./deployment-view.ts";

const DEFAULT_BRANCH = "main";

/**
 * Starts a deployment (pending) and queues it; the project's coordinator serializes it
 * with the project's other operations. The first deploy registers the platform webhook
 * in the project's repository, which turns auto-deploy on (until the user turns it off).
 */
export async function startDeployment(
  env: Bindings,
  config: EnvVars,
  project: Project,
  input: { repo_url?: string; branch?: string; trigger: Deployment["trigger"]; sourceCommit?: string },
): Promise<Deployment> {
  const { repoUrl, external } = chooseRepository(config, project.slug, input.repo_url);
  await ensurePlatformWebhook(env, project);
  const { deployment } = await coordinatorFor(env, project.id).deploy({ id: project.id, slug: project.slug }, { repoUrl, branch: input.branch ?? DEFAULT_BRANCH, external, trigger: input.trigger, sourceCommit: input.sourceCommit });
  return deployment;
}

/** `deploy: true` on a file push: deploys that commit's branch; the answer's `deploy` object. */
export async function deployPushedCommit(env: Bindings, config: EnvVars, project: Project, pushed: { commit: string; branch: string }): Promise<{ status: string; deployment_id: string; url: string }> {
  const deployment = await startDeployment(env, config, project, { branch: pushed.branch, trigger: "manual", sourceCommit: pushed.commit });
  return { status: deployment.status, deployment_id: deployment.id, url: appUrl(config, project.slug) };
}

/**
 * A push to the project's repository (the platform webhook): deploys the pushed branch
 * when auto_deploy is on and the branch is the one the project deploys, once per commit,
 * and not when a deployment made since the push already covers it.
 */
export async function deployOnPush(env: Bindings, config: EnvVars, project: Project, push: { ref: string; after: string; pushed_at: string }): Promise<Deployment | null> {
  const branch = push.ref.startsWith("refs/heads/") ? push.ref.slice("refs/heads/".length) : null;
  if (!branch || /^0+$/.test(push.after)) return null; // a tag, or a deleted branch
  // Events arrive at least once and in any order: a deployment made after this push builds a tip that includes it.
  if (await deployedSince(config, project.id, push.pushed_at)) return null;
  const settings = await deploySettings(env, config, project);
  if (!settings.auto_deploy) return null;
  const current = await currentDeployment(config, project.id);
  if (branch !== (current?.branch ?? DEFAULT_BRANCH)) return null;
  const { repoUrl } = chooseRepository(config, project.slug, undefined);
  const { deployment, created } = await coordinatorFor(env, project.id).deploy({ id: project.id, slug: project.slug }, { repoUrl, branch, external: false, trigger: "webhook", sourceCommit: push.after });
  return created ? deployment : null;
}

export async function deploySettings(env: Bindings, config: EnvVars, project: Project): Promise<DeploySettings> {
  return effectiveSettings(await getStoredDeploySettings(config, project.id), await platformWebhookIdOf(env, project));
}

export async function changeDeploySettings(env: Bindings, config: EnvVars, project: Project, change: { auto_deploy?: boolean; env?: Record<string, string | null> }): Promise<DeploySettings> {
  return effectiveSettings(await updateDeploySettings(config, project.id, change), await platformWebhookIdOf(env, project));
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
