import { app } from "./app.ts";
import type { Bindings } from "./env.ts";
import { consumeDeployJobs, consumeDeadDeployJobs } from "./deploy/queue-consumer.ts";

export { RateLimiter } from "../durable-objects/rate-limiter.ts";
export { AuthTokens } from "../durable-objects/auth-tokens.ts";
export { KvStore } from "../durable-objects/kv-store.ts";
export { DeployCoordinator } from "../durable-objects/deploy-coordinator.ts";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  queue: async (batch, env) => {
    if (batch.queue === "slipway-deploys") return consumeDeployJobs(batch, env);
    if (batch.queue === "slipway-deploys-dlq") return consumeDeadDeployJobs(batch, env);
  },
} satisfies ExportedHandler<Bindings>;
