import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env.ts";
import { loadConfig } from "../src/env.ts";
import type { StatusReport } from "../container-runner/src/protocol.ts";
import {
  applyReport, createDeployment, currentDeployment, destroyDeployments, deploymentOfCommit, setDeploymentStatus, IN_PROGRESS, type Deployment, type NewDeployment,
} from "../src/deploy/deployments.ts";
import type { DeployQueueMessage } from "../src/deploy/queue-message.ts";

type Action = DeployQueueMessage["action"];
type ProjectRef = { id: string; slug: string };
/** A job waiting in this project's outbox; only the head is ever on the queue (`sent`). */
type OutboxJob = { job_id: string; action: Action; deployment_id: string; sent: boolean };

export type ControlResult = { ok: true; deployment: Deployment } | { ok: false; status: 404 | 409; detail: string };

/** Which current states each control action applies to. */
const CONTROL_FROM: Record<"stop" | "start" | "restart", Deployment["status"][]> = {
  stop: ["running"],
  start: ["stopped", "failed"],
  restart: ["running", "stopped", "failed"],
};

/**
 * One per project: serializes deploy, stop, start, restart and destroy. Jobs wait in an
 * outbox and only its head is on the deploy Queue, so the runner receives a project's
 * jobs in order; a new deploy overtakes queued jobs that have not been sent. A watchdog
 * alarm fails deployments whose runner stopped reporting.
 *
 * Storage (KV): `project` → {id, slug}; `outbox` → OutboxJob[]; `watch` → {deployment id: deadline ms}.
 */
export class DeployCoordinator extends DurableObject<Bindings> {
  private chain: Promise<unknown> = Promise.resolve();

  /** One operation at a time, across the awaits on Postgres and the Queue. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => {});
    return run;
  }

  private get config() {
    return loadConfig(this.env as unknown as Record<string, unknown>);
  }

  /**
   * Creates a pending deployment and queues its job. A commit that already has a
   * deployment (`sourceCommit`) is not deployed twice: a file push with deploy true also
   * produces a push event, whichever comes first wins and the other gets it back.
   */
  deploy(project: ProjectRef, input: NewDeployment): Promise<{ deployment: Deployment; created: boolean }> {
    return this.serial(async () => {
      if (input.sourceCommit) {
        const existing = await deploymentOfCommit(this.config, project.id, input.sourceCommit);
        if (existing) return { deployment: existing, created: false };
      }
      this.ctx.storage.kv.put("project", project);
      const deployment = await createDeployment(this.config, project.id, input);
      const kept: OutboxJob[] = [];
      for (const job of this.outbox()) {
        if (job.sent) kept.push(job);
        else if (job.action === "deploy") await setDeploymentStatus(this.config, job.deployment_id, "superseded", "A newer deploy replaced this one before it started.");
      }
      this.saveOutbox([...kept, newJob("deploy", deployment.id)]);
      await this.pump(project);
      return { deployment, created: true };
    });
  }

  /** Queues stop, start or restart for the current deployment, if it is in a state that allows it. */
  control(project: ProjectRef, action: "stop" | "start" | "restart"): Promise<ControlResult> {
    return this.serial(async () => {
      const current = await currentDeployment(this.config, project.id);
      if (!current || current.status === "destroyed") return { ok: false, status: 404, detail: `Nothing is deployed, so there is nothing to ${action}. Deploy with POST /{slug}/deploy.` };
      if (IN_PROGRESS.includes(current.status)) return { ok: false, status: 409, detail: `Deployment ${current.id} is still ${current.status}; wait until it is running or failed, then ${action}.` };
      if (!CONTROL_FROM[action].includes(current.status)) return { ok: false, status: 409, detail: `The deployment is ${current.status}; ${action} applies when it is ${CONTROL_FROM[action].join(" or ")}.` };
      this.ctx.storage.kv.put("project", project);
      this.saveOutbox([...this.outbox(), newJob(action, current.id)]);
      await this.pump(project);
      return { ok: true, deployment: current };
    });
  }

  /** Marks every live deployment destroyed at once and queues the runner's clean-up. */
  destroy(project: ProjectRef): Promise<{ ok: true; ids: string[] } | { ok: false; status: 404; detail: string }> {
    return this.serial(async () => {
      const current = await currentDeployment(this.config, project.id);
      const ids = await destroyDeployments(this.config, project.id);
      if (!current || (ids.length === 0 && current.status === "destroyed")) return { ok: false as const, status: 404 as const, detail: "Nothing is deployed, so there is nothing to destroy." };
      this.ctx.storage.kv.put("project", project);
      this.saveOutbox([...this.outbox().filter((j) => j.sent), newJob("destroy", current.id)]);
      this.ctx.storage.kv.put("watch", {});
      await this.pump(project);
      return { ok: true as const, ids };
    });
  }

  /** Whether the consumer should still hand this job over (false: dropped or already settled). */
  async isWanted(jobId: string): Promise<boolean> {
    return this.outbox().some((j) => j.job_id === jobId && j.sent);
  }

  /** The consumer's verdict on a job: accepted by the runner, or refused for good (reason). */
  settle(jobId: string, outcome: { accepted: true } | { accepted: false; reason: string }): Promise<void> {
    return this.serial(async () => {
      const outbox = this.outbox();
      const job = outbox.find((j) => j.job_id === jobId);
      if (!job) return;
      this.saveOutbox(outbox.filter((j) => j !== job));
      if (job.action === "deploy") {
        if (outcome.accepted) await this.watch(job.deployment_id);
        else await setDeploymentStatus(this.config, job.deployment_id, "failed", `The deploy could not start: ${outcome.reason}.`, ["pending"]);
      }
      const project = this.ctx.storage.kv.get<ProjectRef>("project");
      if (project) await this.pump(project);
    });
  }

  /** Records a runner's signed report (already verified) and moves the watchdog. */
  report(report: StatusReport): Promise<boolean> {
    return this.serial(async () => {
      const project = this.ctx.storage.kv.get<ProjectRef>("project");
      if (!project || project.slug !== report.project) return false;
      const row = await applyReport(this.config, project.id, report);
      if (!row) return false;
      if (IN_PROGRESS.includes(row.status)) await this.watch(row.id);
      else this.unwatch(row.id);
      return true;
    });
  }

  /** Fails deployments whose runner has not reported within DEPLOY_STALE_SECONDS. */
  async alarm(): Promise<void> {
    await this.serial(async () => {
      const watch = this.ctx.storage.kv.get<Record<string, number>>("watch") ?? {};
      const now = Date.now();
      for (const [id, deadline] of Object.entries(watch)) {
        if (deadline > now) continue;
        await setDeploymentStatus(this.config, id, "failed", `The container-runner stopped reporting for ${this.config.DEPLOY_STALE_SECONDS} s during the deploy (it may have restarted); deploy again.`, IN_PROGRESS);
        delete watch[id];
      }
      this.ctx.storage.kv.put("watch", watch);
      await this.armAlarm(watch);
    });
  }

  private outbox(): OutboxJob[] {
    return this.ctx.storage.kv.get<OutboxJob[]>("outbox") ?? [];
  }

  private saveOutbox(outbox: OutboxJob[]): void {
    this.ctx.storage.kv.put("outbox", outbox);
  }

  /** Puts the outbox head on the Queue unless it is there already. */
  private async pump(project: ProjectRef): Promise<void> {
    const outbox = this.outbox();
    const head = outbox[0];
    if (!head || head.sent) return;
    await this.env.DEPLOY_QUEUE.send({ job_id: head.job_id, project_id: project.id, slug: project.slug, action: head.action, deployment_id: head.deployment_id } satisfies DeployQueueMessage);
    head.sent = true;
    this.saveOutbox(outbox);
  }

  private async watch(deploymentId: string): Promise<void> {
    const watch = this.ctx.storage.kv.get<Record<string, number>>("watch") ?? {};
    watch[deploymentId] = Date.now() + this.config.DEPLOY_STALE_SECONDS * 1000;
    this.ctx.storage.kv.put("watch", watch);
    await this.armAlarm(watch);
  }

  private unwatch(deploymentId: string): void {
    const watch = this.ctx.storage.kv.get<Record<string, number>>("watch") ?? {};
    delete watch[deploymentId];
    this.ctx.storage.kv.put("watch", watch);
  }

  private async armAlarm(watch: Record<string, number>): Promise<void> {
    const next = Math.min(...Object.values(watch));
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
  }
}

function newJob(action: Action, deploymentId: string): OutboxJob {
  return { job_id: crypto.randomUUID(), action, deployment_id: deploymentId, sent: false };
}
