import { mkdir, rm } from "node:fs/promises";
import { resolve } from "node:path";
import type { Backend, CommandSpec } from "./backends/backend.ts";
import type { DeployJob } from "./protocol.ts";
import type { DeploymentLogs } from "./logs.ts";
import type { Toolchains } from "./toolchains.ts";
import type { RunnerConfig } from "./config.ts";
import { cloneRepository, CloneError } from "./clone.ts";
import { checkRepoUrl } from "./repo-url-policy.ts";
import { detectStack, planStack, DetectError, type StackPlan } from "./detect.ts";

/** A deployment whose files are cloned and built, ready to start (again). */
export type Built = {
  deploymentId: string;
  job: DeployJob;
  callbackUrl: string;
  commit: string;
  plan: StackPlan;
  /** Everything needed to run a command for it, except the argv. */
  command: Omit<CommandSpec, "argv">;
};

/** A failure the user caused or can fix (bad repo, build error): its message is the reason shown. */
export class BuildFailure extends Error {}

/** Clone, detect the stack, and run its install/build steps, logging each. */
export async function buildDeployment(
  job: DeployJob,
  deps: { config: RunnerConfig; backend: Backend; logs: DeploymentLogs; toolchains: Toolchains; staticServer: string; signal: AbortSignal; dir: string; cacheDir: string },
): Promise<Built> {
  const { config, logs, signal } = deps;
  const log = (line: string) => logs.write(job.deployment_id, "runner", line);
  const dir = resolve(deps.dir);
  const problem = await checkRepoUrl(job.repo_url, { external: job.external, platformHosts: config.RUNNER_PLATFORM_GIT_HOSTS.split(",").map((h) => h.trim()).filter(Boolean) });
  if (problem) throw new BuildFailure(`Cannot deploy from this repository: ${problem}.`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(resolve(dir, ".."), { recursive: true });
  let commit: string;
  try {
    commit = await cloneRepository({ url: job.repo_url, branch: job.branch, dest: dir, external: job.external, timeoutMs: config.RUNNER_CLONE_TIMEOUT_SECONDS * 1000, maxBytes: config.RUNNER_CLONE_MAX_MB * 1048576, signal, log });
  } catch (err) {
    if (err instanceof CloneError) throw new BuildFailure(err.message);
    throw err;
  }
  let plan: StackPlan;
  try {
    plan = await planStack(dir, await detectStack(dir), deps.toolchains, deps.staticServer);
  } catch (err) {
    if (err instanceof DetectError) throw new BuildFailure(err.message);
    throw err;
  }
  log(`detected stack: ${plan.stack}${plan.toolchain ? ` (${plan.toolchain.version})` : ""}`);
  const command = { deploymentId: job.deployment_id, project: job.project, dir, cacheDir: resolve(deps.cacheDir), env: job.env, limits: job.limits, toolchain: plan.toolchain };
  for (const step of plan.steps) {
    if (signal.aborted) throw new BuildFailure("cancelled");
    log(`$ ${step.label}`);
    const exit = await deps.backend.runStep({ ...command, argv: step.argv }, (t) => logs.write(job.deployment_id, "build", t), { signal, timeoutMs: config.RUNNER_BUILD_TIMEOUT_SECONDS * 1000 });
    if (exit.code !== 0) {
      const how = exit.code === null ? `was killed${exit.signal ? ` (${exit.signal})` : ""} (time limit ${config.RUNNER_BUILD_TIMEOUT_SECONDS} s, or memory)` : `failed with exit code ${exit.code}`;
      throw new BuildFailure(`Build step \`${step.label}\` ${how}. See the build logs.`);
    }
  }
  return { deploymentId: job.deployment_id, job, callbackUrl: job.callback_url, commit, plan, command };
}
