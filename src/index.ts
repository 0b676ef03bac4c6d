import { app } from "./app.ts";
import type { Bindings } from "./env.ts";

export { RateLimiter } from "../durable-objects/rate-limiter.ts";
export { GitRepo } from "../durable-objects/git-repo.ts";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Bindings>;
