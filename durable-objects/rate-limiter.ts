import { DurableObject } from "cloudflare:workers";

/** The answer to one request against a limit. */
export type RateLimitResult = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends and the count starts again. */
  resetAt: number;
};

/**
 * Counts requests in fixed windows for one scope (one object per scope, e.g. the SQL
 * queries of one project). A Durable Object runs one call at a time, so the count is
 * exact under any concurrency. The count lives in SQLite-backed storage, so it survives
 * eviction; an alarm clears it after the window so idle scopes keep nothing.
 */
export class RateLimiter extends DurableObject {
  /**
   * Counts `cost` against `limit` per `windowSeconds` (windows aligned to the epoch) and
   * says whether the request is admitted. A refused request does not count.
   */
  async hit(limit: number, windowSeconds: number, cost = 1): Promise<RateLimitResult> {
    const now = Date.now() / 1000;
    const windowStart = Math.floor(now / windowSeconds) * windowSeconds;
    const resetAt = windowStart + windowSeconds;
    const kv = this.ctx.storage.kv;
    const key = `w:${windowSeconds}`;
    const stored = kv.get<{ start: number; count: number }>(key);
    const count = stored && stored.start === windowStart ? stored.count : 0;
    if (count + cost > limit) return { allowed: false, limit, remaining: Math.max(0, limit - count), resetAt };
    kv.put(key, { start: windowStart, count: count + cost });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(resetAt * 1000);
    return { allowed: true, limit, remaining: limit - count - cost, resetAt };
  }

  /** Clears the windows that have ended; re-arms while a window is still open. */
  async alarm(): Promise<void> {
    const now = Date.now() / 1000;
    const kv = this.ctx.storage.kv;
    let nextReset = Infinity;
    for (const [key, value] of kv.list<{ start: number; count: number }>({ prefix: "w:" })) {
      const windowSeconds = Number(key.slice(2));
      const end = value.start + windowSeconds;
      if (end <= now) kv.delete(key);
      else nextReset = Math.min(nextReset, end);
    }
    if (nextReset !== Infinity) await this.ctx.storage.setAlarm(nextReset * 1000);
  }
}
