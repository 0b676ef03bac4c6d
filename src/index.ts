import { app } from "./app.ts";
import type { Bindings } from "./env.ts";

export { RateLimiter } from "../durable-objects/rate-limiter.ts";
export { AuthTokens } from "../durable-objects/auth-tokens.ts";
export { KvStore } from "../durable-objects/kv-store.ts";

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Bindings>;
