import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { consume, rateLimitHeaders, type RateRule } from "../limits/rate-limit.ts";
import { loginFailuresPerEmailRule, loginFailuresPerIpRule } from "../limits/rules.ts";
import { sha256Hex } from "../platform/crypto.ts";
import type { Project } from "../projects/projects.ts";

/**
 * Brute-force protection for end-user login: failures are counted per email and per
 * client IP; once either reaches its limit, login answers 429 with Retry-After until
 * the window ends — for registered and unknown emails alike. Successes are not counted.
 */
export async function loginGuard(c: Context<AppEnv>, project: Project, email: string) {
  const ip = c.req.header("cf-connecting-ip") ?? "unknown";
  const rules: RateRule[] = [loginFailuresPerEmailRule(project, await sha256Hex(email.toLowerCase())), loginFailuresPerIpRule(project, ip)];
  return {
    /** 429 when a limit is used up; counts nothing (cost 0 reads the window). */
    async check(): Promise<void> {
      const results = await Promise.all(rules.map((rule) => consume(c.env, rule, 0)));
      const blocked = results.findIndex((r) => r.remaining <= 0);
      if (blocked === -1) return;
      const result = results[blocked]!;
      const retryAfter = Math.max(1, Math.ceil(result.resetAt - Date.now() / 1000));
      throw new ApiError(429, `Too many ${rules[blocked]!.what}. Retry after ${retryAfter} s, or reset the password.`, {
        code: "rate_limited",
        headers: { ...rateLimitHeaders(result), "Retry-After": String(retryAfter) },
      });
    },
    async recordFailure(): Promise<void> {
      await Promise.all(rules.map((rule) => consume(c.env, rule, 1)));
    },
  };
}
