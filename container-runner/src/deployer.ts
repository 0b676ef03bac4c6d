import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Backend, AppHandle } from "./backends/backend.ts";
import type { ControlJob, DeployJob, RunnerJob, StatusReport } from "./protocol.ts";
import type { DeploymentLogs } from "./logs.ts";
import type { StatusReporter } from "./reporter.ts";
import type { Toolchains } from "./toolchains.ts";
import type { RunnerConfig } from "./config.ts";
import { buildDeployment, BuildFailure, type Built } from "./build.ts";
import { waitUntilAnswering } from "./wait-ready.ts";

type Serving = { built: Built; app: AppHandle; stopping: boolean };
type ProjectState = {
  serving?: Serving;
  /** Built but not running: stopped, or crashed after it ran. */
  idle?: Built;
  building?: { deploymentId: string; abort: AbortController; callbackUrl: string };
  chain: Promise<void>;
};

/**
 * Runs jobs, one at a time per project: deploy (clone, build, start, wait, swap), stop,
 * start, restart, destroy. A new deploy cancels an unfinished one; a redeploy keeps the
 * old app serving until the new one answers. Every state change is reported.
 */
export class Deployer {
  private projects = new Map<string, ProjectState>();

  private readonly deps: { config: RunnerConfig; backend: Backend; logs: DeploymentLogs; reporter: StatusReporter; toolchains: Toolchains; staticServer: string; appUrl: (slug: string) => string };

  constructor(deps: { config: RunnerConfig; backend: Backend; logs: DeploymentLogs; reporter: StatusReporter; toolchains: Toolchains; staticServer: string; appUrl: (slug: string) => string }) {
    this.deps = deps;
  }

  /** Queues a job behind the project's earlier ones; a deploy first cancels an unfinished build. */
  accept(job: RunnerJob): void {
    const state = this.state(job.project);
    if (job.action === "deploy" || job.action === "destroy") state.building?.abort.abort(job.action);
    state.chain = state.chain.then(() => this.run(state, job)).catch((err) => this.deps.logs.write(job.deployment_id, "runner", `internal error: ${(err as Error).stack ?? err}`));
  }

  /** Where the proxy finds a project's serving app. */
  route(slug: string): { host: string; port: number } | null {
    const serving = this.projects.get(slug)?.serving;
    return serving && !serving.stopping ? { host: serving.app.host, port: serving.app.port } : null;
  }

  /** Settles when every queued job has finished (tests and shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.projects.values()].map((s) => s.chain));
  }

  /** Stops every app (runner shutdown) and reports them failed: nothing serves them now. */
  async shutdown(): Promise<void> {
    for (const [slug, state] of this.projects) {
      state.building?.abort.abort("shutdown");
      const serving = state.serving;
      if (serving) {
        serving.stopping = true;
        await serving.app.stop();
      }
      for (const built of [serving?.built, state.idle]) if (built) await this.deps.backend.release(built.deploymentId);
      // Queued, not awaited: the Worker may be gone already (stop() bounds the wait).
      if (serving) void this.report(serving.built.callbackUrl, { deployment_id: serving.built.deploymentId, project: slug, status: "failed", detail: "The runner shut down; start or deploy again." });
    }
    await Promise.all([...this.projects.values()].map((s) => s.chain));
  }

  private state(slug: string): ProjectState {
    let state = this.projects.get(slug);
    if (!state) this.projects.set(slug, (state = { chain: Promise.resolve() }));
    return state;
  }

  private report(callbackUrl: string, report: Omit<StatusReport, "at" | "seq">): Promise<void> {
    this.deps.logs.write(report.deployment_id, "runner", `status: ${report.status}${report.detail ? ` (${report.detail})` : ""}`);
    return this.deps.reporter.report(callbackUrl, report);
  }

  private async run(state: ProjectState, job: RunnerJob): Promise<void> {
    if (job.action === "deploy") return this.deploy(state, job);
    if (job.action === "stop") return this.stop(state, job);
    if (job.action === "start") return this.start(state, job, false);
    if (job.action === "restart") return this.start(state, job, true);
    return this.destroy(state, job);
  }

  private async deploy(state: ProjectState, job: DeployJob): Promise<void> {
    const abort = new AbortController();
    state.building = { deploymentId: job.deployment_id, abort, callbackUrl: job.callback_url };
    const base = { deployment_id: job.deployment_id, project: job.project, job_id: job.job_id };
    const log = (line: string) => this.deps.logs.write(job.deployment_id, "runner", line);
    await this.report(job.callback_url, { ...base, status: "building" });
    for (const note of this.deps.backend.describe()) log(note);
    const heartbeat = setInterval(() => void this.deps.reporter.report(job.callback_url, { ...base, status: "building", detail: "still building" }), this.deps.config.RUNNER_HEARTBEAT_SECONDS * 1000);
    let built: Built | undefined;
    let app: AppHandle | undefined;
    try {
      built = await buildDeployment(job, { ...this.deps, signal: abort.signal, dir: this.appDir(job.project, job.deployment_id), cacheDir: this.cacheDir(job.project) });
      app = await this.launch(built, abort.signal);
      clearInterval(heartbeat);
      this.swapIn(state, built, app);
      state.building = undefined;
      await this.report(job.callback_url, { ...base, status: "running", url: this.deps.appUrl(job.project), commit: built.commit, stack: built.plan.stack });
    } catch (err) {
      clearInterval(heartbeat);
      if (state.building?.deploymentId === job.deployment_id) state.building = undefined;
      await app?.stop();
      await this.discard(job.deployment_id, job.project);
      if (abort.signal.aborted) {
        const reason = abort.signal.reason;
        const fate = reason === "destroy" ? { status: "destroyed" as const, detail: "Destroyed before the deploy finished." } : reason === "shutdown" ? { status: "failed" as const, detail: "The runner shut down during the deploy; deploy again." } : { status: "superseded" as const, detail: "A newer deploy replaced this one before it finished." };
        await this.report(job.callback_url, { ...base, ...fate });
        this.deps.logs.close(job.deployment_id);
        return;
      }
      const detail = err instanceof BuildFailure ? err.message : `Deploy failed: ${(err as Error).message}`;
      await this.report(job.callback_url, { ...base, status: "failed", detail, commit: built?.commit, stack: built?.plan.stack });
      this.deps.logs.close(job.deployment_id);
    }
  }

  /** Starts a built app and waits until it answers; the app is stopped again if it does not. */
  private async launch(built: Built, signal: AbortSignal): Promise<AppHandle> {
    const port = await freePort();
    const app = await this.deps.backend.startApp({ ...built.command, argv: built.plan.start, port }, (t) => this.deps.logs.write(built.deploymentId, "app", t));
    this.deps.logs.write(built.deploymentId, "runner", `started \`${built.plan.start.join(" ")}\` with PORT=${port}; waiting for it to answer`);
    try {
      await waitUntilAnswering({ host: app.host, port: app.port, timeoutMs: this.deps.config.RUNNER_READY_TIMEOUT_SECONDS * 1000, exited: app.exited, signal });
    } catch (err) {
      await app.stop();
      const exit = await Promise.race([app.exited, Promise.resolve(null)]);
      throw new BuildFailure(`${(err as Error).message}${exit ? ` (${describeExit(exit)})` : ""}. See the logs.`);
    }
    return app;
  }

  /** Routes the project to the new app, then retires what served before. */
  private swapIn(state: ProjectState, built: Built, app: AppHandle): void {
    const old = state.serving;
    const idle = state.idle;
    state.serving = { built, app, stopping: false };
    state.idle = undefined;
    this.watchForCrash(state, state.serving);
    for (const retired of [old?.built, idle]) {
      if (!retired || retired.deploymentId === built.deploymentId) continue;
      void (async () => {
        if (old && retired === old.built) ((old.stopping = true), await old.app.stop());
        await this.discard(retired.deploymentId, built.job.project);
        await this.report(retired.callbackUrl, { deployment_id: retired.deploymentId, project: built.job.project, status: "superseded", detail: `Replaced by deployment ${built.deploymentId}.` });
        this.deps.logs.close(retired.deploymentId);
      })();
    }
  }

  private watchForCrash(state: ProjectState, serving: Serving): void {
    void serving.app.exited.then(async (exit) => {
      if (serving.stopping || state.serving !== serving) return;
      state.serving = undefined;
      state.idle = serving.built;
      await this.report(serving.built.callbackUrl, { deployment_id: serving.built.deploymentId, project: serving.built.job.project, status: "failed", detail: `The app exited (${describeExit(exit)}). See the logs; start or deploy again.` });
    });
  }

  private async stop(state: ProjectState, job: ControlJob): Promise<void> {
    const base = { deployment_id: job.deployment_id, project: job.project, job_id: job.job_id };
    const serving = state.serving;
    if (serving?.built.deploymentId === job.deployment_id) {
      serving.stopping = true;
      await serving.app.stop();
      state.serving = undefined;
      state.idle = serving.built;
      return this.report(job.callback_url, { ...base, status: "stopped" });
    }
    const known = state.idle?.deploymentId === job.deployment_id;
    await this.report(job.callback_url, { ...base, status: "stopped", detail: known ? undefined : "It was not running on this runner." });
  }

  private async start(state: ProjectState, job: ControlJob, restart: boolean): Promise<void> {
    const base = { deployment_id: job.deployment_id, project: job.project, job_id: job.job_id };
    const serving = state.serving;
    if (serving?.built.deploymentId === job.deployment_id) {
      if (!restart) return this.report(job.callback_url, { ...base, status: "running", url: this.deps.appUrl(job.project) });
      serving.stopping = true;
      this.deps.logs.write(job.deployment_id, "runner", "restarting");
      await serving.app.stop();
      state.serving = undefined;
      state.idle = serving.built;
    }
    const built = state.idle;
    if (built?.deploymentId !== job.deployment_id) {
      return this.report(job.callback_url, { ...base, status: "failed", detail: "This runner no longer has this deployment's build (the runner restarted or it was destroyed); deploy again." });
    }
    built.callbackUrl = job.callback_url;
    try {
      const app = await this.launch(built, new AbortController().signal);
      this.swapIn(state, built, app);
      await this.report(job.callback_url, { ...base, status: "running", url: this.deps.appUrl(job.project), commit: built.commit, stack: built.plan.stack });
    } catch (err) {
      await this.report(job.callback_url, { ...base, status: "failed", detail: (err as Error).message });
    }
  }

  private async destroy(state: ProjectState, job: ControlJob): Promise<void> {
    const ids = new Set([job.deployment_id]);
    if (state.serving) {
      state.serving.stopping = true;
      await state.serving.app.stop();
      ids.add(state.serving.built.deploymentId);
    }
    if (state.idle) ids.add(state.idle.deploymentId);
    state.serving = state.idle = undefined;
    for (const id of ids) {
      await this.discard(id, job.project);
      await this.report(job.callback_url, { deployment_id: id, project: job.project, job_id: id === job.deployment_id ? job.job_id : undefined, status: "destroyed" });
      this.deps.logs.close(id);
    }
    await rm(this.cacheDir(job.project), { recursive: true, force: true });
    await rm(join(this.deps.config.RUNNER_DATA_DIR, "apps", job.project), { recursive: true, force: true });
  }

  private appDir(slug: string, deploymentId: string): string {
    return join(this.deps.config.RUNNER_DATA_DIR, "apps", slug, deploymentId);
  }

  private cacheDir(slug: string): string {
    return join(this.deps.config.RUNNER_DATA_DIR, "cache", slug);
  }

  private async discard(deploymentId: string, slug: string): Promise<void> {
    await this.deps.backend.release(deploymentId);
    await rm(this.appDir(slug, deploymentId), { recursive: true, force: true });
  }
}

export function describeExit(exit: { code: number | null; signal: string | null }): string {
  if (exit.signal === "SIGKILL") return "killed (SIGKILL), possibly over the plan's memory limit";
  if (exit.signal) return `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
