import WebSocket from "ws";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, BASE, newAccount, newProject, type TestAccount } from "./client.ts";

const MB = 1024 * 1024;

/** Runs `total` calls with `width` of them in flight at any moment. */
async function inParallel<T>(total: number, width: number, call: () => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let started = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (started < total) {
      started++;
      results.push(await call());
    }
  }));
  return results;
}

/** A Pro account with a fresh project, and a shorthand for its key-value calls. */
async function proStore(plan = "pro") {
  const account = await newAccount({ plan });
  const { slug } = await newProject(account);
  const kv = (op: string, body?: unknown) => account.api(op === "usage" ? "GET" : "POST", `/${slug}/redis/${op}`, body);
  return { account, slug, kv };
}

describe("key-value operations (Pro account)", () => {
  let kv: Awaited<ReturnType<typeof proStore>>["kv"];
  beforeAll(async () => {
    ({ kv } = await proStore());
  });

  it("stores JSON values and returns them as stored; a missing key is null", async () => {
    const values = [{ a: 1, nested: { b: [true, null] } }, [1, "two"], "text", 42, 3.5, false, "ünïcödé ✓"];
    for (const [i, value] of values.entries()) {
      expect((await kv("set", { key: `json:${i}`, value })).body).toEqual({ ok: true });
      expect((await kv("get", { key: `json:${i}` })).body).toEqual({ value });
    }
    expect((await kv("get", { key: "json:none" })).body).toEqual({ value: null });
  });

  it("deletes keys and counts only those that existed", async () => {
    await kv("set", { key: "del:a", value: 1 });
    await kv("rpush", { key: "del:b", values: [1] });
    expect((await kv("delete", { keys: ["del:a", "del:b", "del:none", "del:a"] })).body).toEqual({ deleted: 2 });
    expect((await kv("get", { key: "del:a" })).body).toEqual({ value: null });
  });

  it("mset sets many keys with one ttl and mget reads them, missing and list keys as null", async () => {
    expect((await kv("mset", { items: { "m:a": { x: 1 }, "m:b": "two" }, ttl: 120 })).body).toEqual({ ok: true });
    await kv("rpush", { key: "m:list", values: [1] });
    expect((await kv("mget", { keys: ["m:a", "m:b", "m:none", "m:list"] })).body).toEqual({ values: { "m:a": { x: 1 }, "m:b": "two", "m:none": null, "m:list": null } });
    expect((await kv("ttl", { key: "m:b" })).body.ttl).toBeGreaterThan(100);
    expect((await kv("ttl", { key: "m:b" })).body.ttl).toBeLessThanOrEqual(120);
  });

  it("gives every write the default ttl of one hour; ttl is -2 for a missing key", async () => {
    await kv("set", { key: "t:default", value: 1 });
    const { ttl } = (await kv("ttl", { key: "t:default" })).body;
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect((await kv("ttl", { key: "t:none" })).body).toEqual({ ttl: -2 });
  });

  it("expire sets a new ttl, says false for a missing key, and deletes at ttl 0", async () => {
    await kv("set", { key: "e:a", value: 1 });
    expect((await kv("expire", { key: "e:a", ttl: 604800 })).body).toEqual({ ok: true });
    expect((await kv("ttl", { key: "e:a" })).body.ttl).toBeGreaterThan(604000);
    expect((await kv("expire", { key: "e:none", ttl: 10 })).body).toEqual({ ok: false });
    expect((await kv("expire", { key: "e:a", ttl: 0 })).body).toEqual({ ok: true });
    expect((await kv("get", { key: "e:a" })).body).toEqual({ value: null });
  });

  it("never returns a key once its ttl has passed", async () => {
    await kv("set", { key: "x:short", value: "soon gone", ttl: 1 });
    await kv("rpush", { key: "x:list", values: [1], ttl: 1 });
    expect((await kv("get", { key: "x:short" })).body).toEqual({ value: "soon gone" });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await kv("get", { key: "x:short" })).body).toEqual({ value: null });
    expect((await kv("ttl", { key: "x:short" })).body).toEqual({ ttl: -2 });
    expect((await kv("lrange", { key: "x:list" })).body).toEqual({ values: [] });
    expect((await kv("keys", { pattern: "x:*" })).body.keys).toEqual([]);
  });

  it("incr and decr count from 0 on a missing key, by amount, and keep the key's ttl", async () => {
    expect((await kv("incr", { key: "c:a" })).body).toEqual({ value: 1 });
    expect((await kv("incr", { key: "c:a", amount: 10 })).body).toEqual({ value: 11 });
    expect((await kv("decr", { key: "c:a", amount: 20 })).body).toEqual({ value: -9 });
    expect((await kv("decr", { key: "c:b" })).body).toEqual({ value: -1 });
    expect((await kv("incr", { key: "c:ttl", ttl: 50 })).body).toEqual({ value: 1 });
    await kv("incr", { key: "c:ttl" });
    expect((await kv("ttl", { key: "c:ttl" })).body.ttl).toBeLessThanOrEqual(50);
    expect((await kv("get", { key: "c:a" })).body).toEqual({ value: -9 });
  });

  it("refuses incr on a value that is not an integer, and on a list, with 400 and a clear detail", async () => {
    await kv("set", { key: "c:text", value: "12" });
    await kv("set", { key: "c:float", value: 1.5 });
    await kv("lpush", { key: "c:list", values: [1] });
    for (const key of ["c:text", "c:float"]) {
      const reply = await kv("incr", { key });
      expect(reply.status).toBe(400);
      expect(reply.body.detail).toMatch(/not an integer/);
    }
    const list = await kv("decr", { key: "c:list" });
    expect(list.status).toBe(400);
    expect(list.body.detail).toMatch(/holds a list/);
    expect((await kv("incr", { key: "c:big", amount: Number.MAX_SAFE_INTEGER })).status).toBe(200);
    expect((await kv("incr", { key: "c:big" })).status).toBe(400);
    expect((await kv("incr", { key: "c:x", amount: 1.5 })).status).toBe(400);
  });

  it("pushes, pops and ranges lists with Redis' order and index rules", async () => {
    expect((await kv("rpush", { key: "l", values: ["b", "c"] })).body).toEqual({ length: 2 });
    expect((await kv("lpush", { key: "l", values: ["a", { z: 0 }] })).body).toEqual({ length: 4 });
    // LPUSH a x pushes one at a time: x ends up first.
    expect((await kv("lrange", { key: "l" })).body).toEqual({ values: [{ z: 0 }, "a", "b", "c"] });
    expect((await kv("lrange", { key: "l", start: 1, stop: 2 })).body).toEqual({ values: ["a", "b"] });
    expect((await kv("lrange", { key: "l", start: -2, stop: -1 })).body).toEqual({ values: ["b", "c"] });
    expect((await kv("lrange", { key: "l", start: -100, stop: 100 })).body.values).toHaveLength(4);
    expect((await kv("lrange", { key: "l", start: 3, stop: 1 })).body).toEqual({ values: [] });
    expect((await kv("lrange", { key: "l", start: 10 })).body).toEqual({ values: [] });
    expect((await kv("lpop", { key: "l" })).body).toEqual({ value: { z: 0 } });
    expect((await kv("rpop", { key: "l" })).body).toEqual({ value: "c" });
    expect((await kv("lpop", { key: "l" })).body).toEqual({ value: "a" });
    expect((await kv("rpop", { key: "l" })).body).toEqual({ value: "b" });
    // An emptied list is gone, as in Redis.
    expect((await kv("lpop", { key: "l" })).body).toEqual({ value: null });
    expect((await kv("ttl", { key: "l" })).body).toEqual({ ttl: -2 });
    expect((await kv("lrange", { key: "l:none" })).body).toEqual({ values: [] });
  });

  it("answers list operations on a string and get on a list with 400 naming the type", async () => {
    await kv("set", { key: "w:str", value: "v" });
    await kv("rpush", { key: "w:list", values: [1] });
    for (const [op, body] of [["lpush", { key: "w:str", values: [1] }], ["rpop", { key: "w:str" }], ["lrange", { key: "w:str" }]] as const) {
      const reply = await kv(op, body);
      expect(reply.status).toBe(400);
      expect(reply.body.detail).toMatch(/holds a string value/);
      expect(reply.body.code).toBe("wrong_type");
    }
    const get = await kv("get", { key: "w:list" });
    expect(get.status).toBe(400);
    expect(get.body.detail).toMatch(/holds a list/);
    // set replaces whatever the key held, as SET does.
    expect((await kv("set", { key: "w:list", value: "now a string" })).status).toBe(200);
    expect((await kv("get", { key: "w:list" })).body).toEqual({ value: "now a string" });
  });

  it("scans keys with a glob pattern a page at a time", async () => {
    const names = Array.from({ length: 25 }, (_, i) => `page:${String(i).padStart(2, "0")}`);
    await kv("mset", { items: Object.fromEntries(names.map((n) => [n, 1])) });
    await kv("set", { key: "other:1", value: 1 });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply = await kv("keys", { pattern: "page:*", count: 10, ...(cursor ? { cursor } : {}) });
      expect(reply.status).toBe(200);
      expect(reply.body.keys.length).toBeLessThanOrEqual(10);
      seen.push(...reply.body.keys);
      cursor = reply.body.cursor;
      pages++;
    } while (cursor);
    expect(seen.sort()).toEqual(names);
    expect(pages).toBe(3);
    expect((await kv("keys", { pattern: "page:1?" })).body.keys).toEqual(names.slice(10, 20));
    expect((await kv("keys", { pattern: "page:[02]0" })).body.keys).toEqual(["page:00", "page:20"]);
    expect((await kv("keys", { pattern: "other*" })).body).toEqual({ keys: ["other:1"], cursor: null });
    expect((await kv("keys", { cursor: "not a cursor!" })).status).toBe(400);
  });

  it("runs a pipeline atomically: all results, or a 400 naming the command and no change", async () => {
    const ok = await kv("pipeline", { commands: [{ op: "set", key: "p:a", value: 5 }, { op: "incr", key: "p:a", amount: 2 }, { op: "rpush", key: "p:l", values: [1, 2] }, { op: "lrange", key: "p:l" }, { op: "get", key: "p:a" }] });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ results: [{ ok: true }, { value: 7 }, { length: 2 }, { values: [1, 2] }, { value: 7 }] });
    const failed = await kv("pipeline", { commands: [{ op: "incr", key: "p:a" }, { op: "delete", keys: ["p:l"] }, { op: "lpush", key: "p:a", values: [1] }] });
    expect(failed.status).toBe(400);
    expect(failed.body.detail).toMatch(/^Command 2 \(lpush\)/);
    expect(failed.body.detail).toMatch(/Nothing was changed/);
    expect((await kv("mget", { keys: ["p:a"] })).body.values).toEqual({ "p:a": 7 });
    expect((await kv("lrange", { key: "p:l" })).body.values).toEqual([1, 2]);
    expect((await kv("pipeline", { commands: [{ op: "publish", channel: "x", message: 1 }] })).status).toBe(400);
  });
});

describe("key-value usage and flush", () => {
  it("reports keys and memory exactly (key bytes plus JSON bytes) against the plan's quota", async () => {
    const { kv } = await proStore();
    expect((await kv("usage")).body).toEqual({ key_count: 0, memory_bytes: 0, memory_human: "0B", quota_bytes: 100 * MB, quota_human: "100.00M" });
    await kv("set", { key: "a", value: "bc" }); // 1 + 4 ("bc" with quotes)
    await kv("rpush", { key: "list", values: [1, [2, 3]] }); // 4 + 1 + 5
    expect((await kv("usage")).body).toEqual({ key_count: 2, memory_bytes: 15, memory_human: "15B", quota_bytes: 100 * MB, quota_human: "100.00M" });
    expect((await kv("flush")).body).toEqual({ deleted: 2 });
    expect((await kv("usage")).body).toMatchObject({ key_count: 0, memory_bytes: 0 });
  });

  it("reports the Enterprise quota", async () => {
    const { kv } = await proStore("enterprise");
    expect((await kv("usage")).body).toMatchObject({ quota_bytes: 500 * MB, quota_human: "500.00M" });
  });
});

describe("key-value limits", () => {
  let kv: Awaited<ReturnType<typeof proStore>>["kv"];
  beforeAll(async () => {
    ({ kv } = await proStore());
  });

  it("refuses a ttl over 7 days with 400 naming the maximum", async () => {
    for (const [op, body] of [["set", { key: "k", value: 1, ttl: 604801 }], ["expire", { key: "k", ttl: 604801 }], ["incr", { key: "k", ttl: 10_000_000 }], ["mset", { items: { k: 1 }, ttl: 604801 }]] as const) {
      const reply = await kv(op, body);
      expect(reply.status).toBe(400);
      expect(reply.body.detail).toMatch(/604800 seconds \(7 days\)/);
    }
    expect((await kv("set", { key: "k", value: 1, ttl: 0 })).status).toBe(400);
  });

  it("takes a value of exactly 512 KB and refuses a larger one with 413, writing nothing", async () => {
    const max = "x".repeat(512 * 1024 - 2); // the JSON string's quotes count
    expect((await kv("set", { key: "big", value: max })).status).toBe(200);
    const over = await kv("set", { key: "big2", value: max + "x" });
    expect(over.status).toBe(413);
    expect(over.body.detail).toMatch(/524288 bytes/);
    const mset = await kv("mset", { items: { small: 1, big3: max + "x" } });
    expect(mset.status).toBe(413);
    expect((await kv("get", { key: "small" })).body).toEqual({ value: null });
    expect((await kv("rpush", { key: "l", values: [1, max + "x"] })).status).toBe(413);
    expect((await kv("publish", { channel: "c", message: max + "x" })).status).toBe(413);
  });

  it("refuses mget and mset over 50 keys with 400", async () => {
    const keys = Array.from({ length: 51 }, (_, i) => `k${i}`);
    const mget = await kv("mget", { keys });
    expect(mget.status).toBe(400);
    expect(mget.body.detail).toMatch(/at most 50/);
    const mset = await kv("mset", { items: Object.fromEntries(keys.map((k) => [k, 1])) });
    expect(mset.status).toBe(400);
    expect((await kv("get", { key: "k0" })).body).toEqual({ value: null });
    expect((await kv("mget", { keys: keys.slice(0, 50) })).status).toBe(200);
  });

  it("reserves keys starting with __ (400), for reads and writes", async () => {
    for (const [op, body] of [["set", { key: "__internal", value: 1 }], ["get", { key: "__x" }], ["mget", { keys: ["ok", "__x"] }], ["mset", { items: { __x: 1 } }], ["incr", { key: "__n" }], ["delete", { keys: ["__x"] }]] as const) {
      const reply = await kv(op, body);
      expect(reply.status, op).toBe(400);
      expect(reply.body.detail).toMatch(/reserved/);
    }
    expect((await kv("set", { key: "_single", value: 1 })).status).toBe(200);
  });

  it("validates bodies: missing key, null value, wrong types, malformed JSON", async () => {
    expect((await kv("set", { value: 1 })).status).toBe(400);
    expect((await kv("set", { key: "k" })).status).toBe(400);
    expect((await kv("set", { key: "k", value: null })).status).toBe(400);
    expect((await kv("lpush", { key: "k2", values: [] })).status).toBe(400);
    expect((await kv("keys", { count: 0 })).status).toBe(400);
    expect((await kv("incr", { key: 5 })).status).toBe(400);
  });
});

describe("key-value plans", () => {
  it("answers 402 on Free and Starter, works after an upgrade to Pro, and 402 again after a downgrade", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    for (const plan of ["free", "starter"]) {
      await admin("PATCH", `/accounts/${account.email}`, { plan });
      for (const [method, op] of [["POST", "set"], ["POST", "get"], ["GET", "usage"], ["POST", "publish"], ["POST", "flush"], ["POST", "pipeline"]]) {
        const body = op === "set" ? { key: "k", value: 1 } : op === "get" ? { key: "k" } : op === "publish" ? { channel: "c", message: 1 } : op === "pipeline" ? { commands: [{ op: "get", key: "k" }] } : undefined;
        const reply = await account.api(method!, `/${slug}/redis/${op}`, body);
        expect(reply.status, `${plan} ${op}`).toBe(402);
        expect(reply.body.detail).toMatch(/Pro and Enterprise/);
      }
    }
    expect((await admin("PATCH", `/accounts/${account.email}`, { plan: "pro" })).status).toBe(200);
    expect((await account.api("POST", `/${slug}/redis/set`, { key: "k", value: 1 })).status).toBe(200);
    await admin("PATCH", `/accounts/${account.email}`, { plan: "free" });
    expect((await account.api("POST", `/${slug}/redis/get`, { key: "k" })).status).toBe(402);
  });

  it("refuses writes over the 100 MB memory quota with 402 while reads and deletes work", async () => {
    const { kv } = await proStore();
    const value = "v".repeat(512 * 1024 - 2);
    const perCall = 14; // ~7 MiB per request, under the 8 MiB body limit
    let written = 0;
    for (let call = 0; ; call++) {
      const items = Object.fromEntries(Array.from({ length: perCall }, (_, i) => [`fill:${call}:${i}`, value]));
      const reply = await kv("mset", { items });
      if (reply.status === 402) break;
      expect(reply.status).toBe(200);
      written += perCall;
    }
    // Then single values until even one more does not fit.
    for (let i = 0; ; i++) {
      const reply = await kv("set", { key: `fill:single:${i}`, value });
      if (reply.status === 402) {
        expect(reply.body.detail).toMatch(/104857600 bytes \(100.00M\)/);
        expect(reply.body.code).toBe("kv_quota_exceeded");
        break;
      }
      expect(reply.status).toBe(200);
      written++;
    }
    const usage = (await kv("usage")).body;
    expect(usage.key_count).toBe(written);
    expect(usage.memory_bytes).toBeLessThanOrEqual(100 * MB);
    expect(usage.memory_bytes + value.length + 2 + "one-more".length).toBeGreaterThan(100 * MB);
    expect((await kv("set", { key: "one-more", value })).status).toBe(402);
    expect((await kv("get", { key: "fill:0:0" })).body.value).toHaveLength(value.length);
    expect((await kv("delete", { keys: ["fill:0:0", "fill:0:1"] })).body).toEqual({ deleted: 2 });
    expect((await kv("set", { key: "one-more", value })).status).toBe(200);
    expect((await kv("usage")).body.key_count).toBe(written - 1);
    expect((await kv("flush")).body.deleted).toBe(written - 1);
  }, 180_000);
});

describe("key-value rate limit (per project, fixed clock hour)", () => {
  it("admits exactly the Pro plan's 10,000 operations an hour, then 429 with Retry-After; other projects are unaffected", async () => {
    const { account, kv } = await proStore();
    const first = await kv("set", { key: "k", value: 1 });
    expect(first.headers.get("ratelimit-limit")).toBe("10000");
    expect(first.headers.get("ratelimit-remaining")).toBe("9999");
    // 99 full pipelines of 100 commands count 9,900; then 99 single calls reach 9,999.
    const pipeline = { commands: Array.from({ length: 100 }, () => ({ op: "get", key: "k" })) };
    for (let i = 0; i < 99; i++) expect((await kv("pipeline", pipeline)).status).toBe(200);
    const singles = await inParallel(120, 60, () => kv("incr", { key: "n" }));
    expect(singles.filter((r) => r.status === 200)).toHaveLength(99);
    const limited = singles.find((r) => r.status === 429)!;
    expect(limited.body.detail).toMatch(/10000 key-value operations per hour on the pro plan/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect((await kv("get", { key: "n" })).body).toMatchObject({ code: "rate_limited" });
    // The refused calls changed nothing.
    const other = await newProject(account);
    expect((await account.api("POST", `/${other.slug}/redis/get`, { key: "k" })).status).toBe(200);
  }, 120_000);
});

describe("key-value exactness and isolation", () => {
  it("counts 1,000 concurrent incr calls as exactly 1,000", async () => {
    const { kv } = await proStore();
    // 100 callers in flight at once: every request also makes two control-plane queries,
    // and the local Postgres takes 100 connections (the store itself is tested at 1,000
    // simultaneous calls in test/worker/kv-store.test.ts).
    const replies = await inParallel(1000, 100, () => kv("incr", { key: "hits" }));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(new Set(replies.map((r) => r.body.value)).size).toBe(1000);
    expect((await kv("get", { key: "hits" })).body).toEqual({ value: 1000 });
  }, 120_000);

  it("keeps each project's keys to itself, and hides other accounts' projects (404)", async () => {
    const a = await proStore();
    const b = await proStore();
    const second = await newProject(a.account);
    await a.kv("set", { key: "secret", value: "a's value" });
    expect((await a.account.api("POST", `/${second.slug}/redis/get`, { key: "secret" })).body).toEqual({ value: null });
    expect((await b.kv("get", { key: "secret" })).body).toEqual({ value: null });
    for (const [method, op, body] of [["POST", "get", { key: "secret" }], ["POST", "keys", {}], ["GET", "usage", undefined], ["POST", "flush", undefined]] as const) {
      const reply = await b.account.api(method, `/${a.slug}/redis/${op}`, body);
      expect(reply.status).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain("a's value");
    }
    expect((await a.kv("get", { key: "secret" })).body).toEqual({ value: "a's value" });
    expect((await a.kv("usage")).body.key_count).toBe(1);
  });
});

describe("publish and subscribe", () => {
  function subscribe(account: TestAccount, slug: string, channels: string[]): Promise<{ ws: WebSocket; messages: any[] }> {
    const url = `${BASE.replace(/^http/, "ws")}/${slug}/redis/subscribe?${channels.map((c) => `channel=${encodeURIComponent(c)}`).join("&")}`;
    const ws = new WebSocket(url, { headers: { "X-API-Key": account.apiKey } });
    const messages: any[] = [];
    return new Promise((resolve, reject) => {
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data));
        if (frame.type === "subscribed") resolve({ ws, messages });
        else messages.push(frame);
      });
      ws.on("error", reject);
      ws.on("unexpected-response", (_req, res) => reject(new Error(`subscribe answered ${res.statusCode}`)));
    });
  }
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it("publish returns 0 with no subscribers and reaches every subscriber of the channel", async () => {
    const { account, slug, kv } = await proStore();
    expect((await kv("publish", { channel: "news", message: "nobody" })).body).toEqual({ receivers: 0 });
    const one = await subscribe(account, slug, ["news"]);
    const two = await subscribe(account, slug, ["news", "sport"]);
    const other = await subscribe(account, slug, ["weather"]);
    expect((await kv("publish", { channel: "news", message: { headline: "hi" } })).body).toEqual({ receivers: 2 });
    expect((await kv("publish", { channel: "sport", message: 1 })).body).toEqual({ receivers: 1 });
    await until(() => one.messages.length >= 1 && two.messages.length >= 2);
    expect(one.messages).toEqual([{ type: "message", channel: "news", message: { headline: "hi" } }]);
    expect(two.messages).toEqual([{ type: "message", channel: "news", message: { headline: "hi" } }, { type: "message", channel: "sport", message: 1 }]);
    expect(other.messages).toEqual([]);
    // A closed subscriber stops counting once its close reaches the store.
    one.ws.close();
    let receivers = -1;
    for (let i = 0; i < 100 && receivers !== 1; i++) {
      receivers = (await kv("publish", { channel: "news", message: "after close" })).body.receivers;
      if (receivers !== 1) await new Promise((r) => setTimeout(r, 20));
    }
    expect(receivers).toBe(1);
    two.ws.close();
    other.ws.close();
  });

  it("refuses a subscription without a WebSocket upgrade (426), on Free (402), and to another account's project (404)", async () => {
    const { account, slug } = await proStore();
    expect((await account.api("GET", `/${slug}/redis/subscribe?channel=a`)).status).toBe(426);
    expect((await account.api("GET", `/${slug}/redis/subscribe`)).status).toBe(400);
    const stranger = await newAccount({ plan: "pro" });
    await expect(subscribe(stranger, slug, ["a"])).rejects.toThrow(/404/);
    const free = await newAccount();
    const freeProject = await newProject(free);
    await expect(subscribe(free, freeProject.slug, ["a"])).rejects.toThrow(/402/);
  });
});
