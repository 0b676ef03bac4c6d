import { app } from "./app.ts";
import type { Bindings } from "./env.ts";
import { deliverGitEvents } from "./git/webhook-delivery.ts";
import { consumeDeployJobs, consumeDeadDeployJobs } from "./deploy/queue-consumer.ts";

export { RateLimiter } from "../durable-objects/rate-limiter.ts";
export { AuthTokens } from "../durable-objects/auth-tokens.ts";
export { KvStore } from "../durable-objects/kv-store.ts";
export { GitRepo } from "../durable-objects/git-repo.ts";
export { DeployCoordinator } from "../durable-objects/deploy-coordinator.ts";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  // Each queue's batches go to the area that owns the queue.
  async queue(batch, env) {
    if (batch.queue.startsWith("slipway-git-events")) return deliverGitEvents(batch, env);
    if (batch.queue === "slipway-deploys") return consumeDeployJobs(batch, env);
    if (batch.queue === "slipway-deploys-dlq") return consumeDeadDeployJobs(batch, env);
    console.error(JSON.stringify({ level: "error", error: `no consumer for queue ${batch.queue}` }));
    batch.retryAll();
  },
} satisfies ExportedHandler<Bindings>;
