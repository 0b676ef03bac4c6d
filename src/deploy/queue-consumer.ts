import type { Bindings } from "../env.ts";
import { loadConfig } from "../env.ts";
import { DeployQueueMessage, retryDelaySeconds } from "./queue-message.ts";
import { runnerJobFor, JobGone } from "./runner-jobs.ts";
import { handOverJob } from "./runner-client.ts";
import { coordinatorFor } from "./coordinator.ts";

/**
 * The deploy Queue's consumer: hands each job to the container-runner, acking only once
 * the runner accepted it (202) and retrying with back-off otherwise. A job the runner
 * refuses for good (400) or whose project is gone is settled as refused.
 */
export async function consumeDeployJobs(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const config = loadConfig(env as unknown as Record<string, unknown>);
  for (const msg of batch.messages) {
    const parsed = DeployQueueMessage.safeParse(msg.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ level: "error", where: "deploy-queue", detail: "malformed message dropped", body: msg.body }));
      msg.ack();
      continue;
    }
    const message = parsed.data;
    const coordinator = coordinatorFor(env, message.project_id);
    try {
      if (!(await coordinator.isWanted(message.job_id))) {
        msg.ack();
        continue;
      }
      const result = await handOverJob(config, await runnerJobFor(env, config, message));
      if (result.accepted) {
        msg.ack();
        await coordinator.settle(message.job_id, { accepted: true });
      } else if (!result.retry) {
        msg.ack();
        await coordinator.settle(message.job_id, { accepted: false, reason: result.detail });
      } else {
        console.log(JSON.stringify({ level: "warn", where: "deploy-queue", job_id: message.job_id, attempt: msg.attempts, detail: result.detail }));
        msg.retry({ delaySeconds: retryDelaySeconds(msg.attempts) });
      }
    } catch (err) {
      if (err instanceof JobGone) {
        msg.ack();
        await coordinator.settle(message.job_id, { accepted: false, reason: err.message });
        continue;
      }
      console.error(JSON.stringify({ level: "error", where: "deploy-queue", job_id: message.job_id, error: (err as Error).message }));
      msg.retry({ delaySeconds: retryDelaySeconds(msg.attempts) });
    }
  }
}

/** The dead-letter queue's consumer: a job no runner accepted ends its deployment failed. */
export async function consumeDeadDeployJobs(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = DeployQueueMessage.safeParse(msg.body);
    if (parsed.success) {
      await coordinatorFor(env, parsed.data.project_id).settle(parsed.data.job_id, { accepted: false, reason: "no container-runner accepted the job after repeated attempts; check the runner and deploy again" });
    }
    msg.ack();
  }
}
