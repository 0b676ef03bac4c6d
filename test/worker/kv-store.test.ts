import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { globToRegExp } from "../../durable-objects/kv/glob.ts";
import { rangeBounds } from "../../durable-objects/kv/commands.ts";
import type { StoreCommand, StoreResult } from "../../durable-objects/kv-store.ts";

const store = (name: string) => env.KV_STORE.get(env.KV_STORE.idFromName(name));
const MB = 1024 * 1024;

async function run(name: string, commands: StoreCommand[], quota = 100 * MB): Promise<StoreResult> {
  return (await store(name).execute(commands, quota)) as StoreResult;
}
async function replies(name: string, commands: StoreCommand[], quota?: number) {
  const result = await run(name, commands, quota);
  if ("failure" in result) throw new Error(result.failure.detail);
  return result.replies;
}

describe("KvStore", () => {
  it("counts 1,000 concurrent incr calls exactly", async () => {
    const stub = store("counter");
    await Promise.all(Array.from({ length: 1000 }, () => stub.execute([{ op: "incr", key: "hits" }], MB)));
    expect(await replies("counter", [{ op: "get", key: "hits" }])).toEqual([{ value: 1000 }]);
  });

  it("applies a pipeline all or nothing", async () => {
    await replies("atomic", [{ op: "set", key: "a", value: "1" }]);
    const result = await run("atomic", [
      { op: "incr", key: "a" },
      { op: "rpush", key: "a", values: ["1"] },
    ]);
    expect(result).toMatchObject({ failure: { status: 400, code: "wrong_type", index: 1 } });
    expect(await replies("atomic", [{ op: "get", key: "a" }])).toEqual([{ value: 1 }]);
  });

  it("refuses a write that goes over the quota and keeps what was there", async () => {
    const value = JSON.stringify("x".repeat(100));
    await replies("quota", [{ op: "set", key: "k1", value }], 150);
    const over = await run("quota", [{ op: "set", key: "k2", value }], 150);
    expect(over).toMatchObject({ failure: { status: 402, code: "kv_quota_exceeded" } });
    // Shrinking writes and deletes still work while full.
    await replies("quota", [{ op: "set", key: "k1", value: "1" }], 1);
    expect(await store("quota").usage()).toEqual({ key_count: 1, memory_bytes: 3 });
  });

  it("counts memory as key bytes plus JSON bytes, lists element by element", async () => {
    await replies("memory", [
      { op: "set", key: "é", value: JSON.stringify("ü") },
      { op: "rpush", key: "list", values: ["1", "[2]"] },
      { op: "lpop", key: "list" },
    ]);
    // "é" is 2 bytes, "\"ü\"" is 4; "list" 4 + "[2]" 3.
    expect(await store("memory").usage()).toEqual({ key_count: 2, memory_bytes: 13 });
  });

  it("never returns an expired key and reclaims it with the alarm", async () => {
    const stub = store("expiry");
    await replies("expiry", [{ op: "set", key: "gone", value: "1", ttl: 60 }, { op: "set", key: "kept", value: "2", ttl: 600 }]);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec(`update entries set expires_at = ? where key = 'gone'`, Date.now() - 1);
    });
    expect(await replies("expiry", [{ op: "get", key: "gone" }, { op: "ttl", key: "gone" }])).toEqual([{ value: null }, { ttl: -2 }]);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec(`update entries set expires_at = ?`, Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const rows = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec(`select count(*) as n from entries`).one().n);
    expect(rows).toBe(0);
  });

  it("keeps an alarm set at the next expiry", async () => {
    const stub = store("alarm-set");
    await replies("alarm-set", [{ op: "set", key: "a", value: "1", ttl: 30 }]);
    const alarm = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
    expect(alarm).toBeLessThanOrEqual(Date.now() + 31_000);
  });
});

describe("LRANGE bounds", () => {
  it.each([
    [5, 0, -1, [0, 4]],
    [5, -2, -1, [3, 4]],
    [5, -100, 2, [0, 2]],
    [5, 3, 100, [3, 4]],
    [5, 5, 10, null],
    [5, 3, 1, null],
    [5, 0, -6, null],
    [0, 0, -1, null],
  ] as const)("length %i, start %i, stop %i", (length, start, stop, expected) => {
    expect(rangeBounds(length, start, stop)).toEqual(expected);
  });
});

describe("Redis glob patterns", () => {
  it.each([
    ["*", "anything", true],
    ["user:*", "user:1", true],
    ["user:*", "users:1", false],
    ["h?llo", "hello", true],
    ["h?llo", "hllo", false],
    ["h[ae]llo", "hallo", true],
    ["h[^e]llo", "hello", false],
    ["h[a-b]llo", "hbllo", true],
    ["h\\*llo", "h*llo", true],
    ["h\\*llo", "hello", false],
    ["a.b", "axb", false],
    ["(x)", "(x)", true],
  ] as const)("%s against %s", (pattern, key, matches) => {
    expect(globToRegExp(pattern).test(key)).toBe(matches);
  });
});
