import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const limiter = (name: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));

describe("RateLimiter", () => {
  it("admits exactly the limit out of 1,000 concurrent requests", async () => {
    const stub = limiter("exactness");
    const results = await Promise.all(Array.from({ length: 1000 }, () => stub.hit(137, 3600)));
    expect(results.filter((r) => r.allowed).length).toBe(137);
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.remaining).toBe(0);
    expect(refused.resetAt).toBeGreaterThan(Date.now() / 1000);
  });

  it("counts down remaining and does not count refused requests", async () => {
    const stub = limiter("countdown");
    expect((await stub.hit(2, 60)).remaining).toBe(1);
    expect((await stub.hit(2, 60)).remaining).toBe(0);
    expect((await stub.hit(2, 60)).allowed).toBe(false);
    expect((await stub.hit(2, 60)).allowed).toBe(false);
    // A wider window in the same object is counted on its own.
    expect((await stub.hit(5, 3600)).remaining).toBe(4);
  });

  it("keeps separate scopes separate", async () => {
    await limiter("scope-a").hit(1, 60);
    expect((await limiter("scope-a").hit(1, 60)).allowed).toBe(false);
    expect((await limiter("scope-b").hit(1, 60)).allowed).toBe(true);
  });

  it("clears an ended window when its alarm runs, and keeps nothing for idle scopes", async () => {
    const stub = limiter("alarm");
    await stub.hit(10, 3600);
    // Pretend the window ended: move the stored window back by two hours.
    await runInDurableObject(stub, (_instance, state) => {
      const stored = state.storage.kv.get<{ start: number; count: number }>("w:3600")!;
      state.storage.kv.put("w:3600", { ...stored, start: stored.start - 7200 });
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const keys = await runInDurableObject(stub, (_i, state) => [...state.storage.kv.list()].length);
    expect(keys).toBe(0);
  });
});
