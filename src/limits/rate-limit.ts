import type { Context } from "hono";
import type { AppEnv, Bindings } from "../env.ts";
import { ApiError } from "../errors.ts";
import type { RateLimitResult } from "../../durable-objects/rate-limiter.ts";

/** A limit: `limit` requests per `windowSeconds`, counted per `scope`. */
export type RateRule = { scope: string; limit: number; windowSeconds: number; what: string };

/** Counts one request against the rule in its RateLimiter object (one per scope). */
export function consume(env: Bindings, rule: RateRule, cost = 1): Promise<RateLimitResult> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`${rule.scope}:${rule.windowSeconds}`));
  return stub.hit(rule.limit, rule.windowSeconds, cost);
}

/** The IETF draft's RateLimit headers plus the widespread X-RateLimit-* ones. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const reset = Math.max(0, Math.ceil(result.resetAt - Date.now() / 1000));
  return {
    "RateLimit-Limit": String(result.limit),
    "RateLimit-Remaining": String(result.remaining),
    "RateLimit-Reset": String(reset),
    "X-RateLimit-Limit": String(result.limit),
    "X-RateLimit-Remaining": String(result.remaining),
    "X-RateLimit-Reset": String(Math.ceil(result.resetAt)),
  };
}

/**
 * Admits the request or answers 429 with Retry-After. Either way the response carries
 * the rate-limit headers, so clients can pace themselves.
 */
export async function enforceRateLimit(c: Context<AppEnv>, rule: RateRule, cost = 1): Promise<void> {
  const started = performance.now();
  const result = await consume(c.env, rule, cost);
  // What the limiter added to this request (bench/kv.ts reads it); the clock only
  // advances across I/O in workerd, which is exactly the round trip measured here.
  c.header("Server-Timing", `ratelimit;dur=${(performance.now() - started).toFixed(2)}`, { append: true });
  const headers = rateLimitHeaders(result);
  if (!result.allowed) {
    const retryAfter = Math.max(1, Math.ceil(result.resetAt - Date.now() / 1000));
    throw new ApiError(429, `Rate limit reached: ${rule.limit} ${rule.what}. Retry after ${retryAfter} s, or upgrade the plan.`, {
      code: "rate_limited",
      headers: { ...headers, "Retry-After": String(retryAfter) },
    });
  }
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
}
