import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAccount, newProject, type Reply } from "./client.ts";
import { RespClient, RespError, startRedis, type RespValue } from "./resp-client.ts";

// The same random sequence of operations against the key-value store and against a real
// redis-server, comparing every answer. The Redis side is what each API call means in
// Redis: values are stored as their JSON text, and a write that creates a key without a
// ttl gets the store's default of one hour.

const DEFAULT_TTL = 3600;
const KEYS = ["a", "b", "c", "n", "l1", "l2", "key:1", "key:2"];
const PATTERNS = ["*", "a*", "?", "l?", "key:*", "[ab]*", "[^l]*", "*1", "k?y:[12]", "none*"];
const OPERATIONS = 400;

type Op = { op: string; body?: Record<string, any> };
/** A comparable answer: the reply body, or "error" for a refused call. */
type Answer = { error: true } | { value: unknown };

function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  return { next, int, pick };
}

function randomOperation(r: ReturnType<typeof random>): Op {
  const key = () => r.pick(KEYS);
  const value = (): unknown => r.pick([() => r.int(-50, 50), () => r.int(-50, 50), () => `s${r.int(0, 9)}`, () => ({ x: r.int(0, 3) }), () => [r.int(0, 3), "y"], () => 1.5, () => true, () => String(r.int(0, 9))])();
  const ttl = () => (r.next() < 0.5 ? { ttl: r.int(100, 100_000) } : {});
  const kind = r.pick(["set", "set", "get", "get", "delete", "mget", "mset", "expire", "ttl", "incr", "incr", "decr", "lpush", "rpush", "rpush", "lpop", "rpop", "lrange", "lrange", "keys", "usage", "flush"]);
  switch (kind) {
    case "set": return { op: kind, body: { key: key(), value: value(), ...ttl() } };
    case "get": case "ttl": case "lpop": case "rpop": return { op: kind, body: { key: key() } };
    case "delete": case "mget": return { op: kind, body: { keys: Array.from({ length: r.int(1, 3) }, key) } };
    case "mset": return { op: kind, body: { items: Object.fromEntries(Array.from({ length: r.int(1, 3) }, () => [key(), value()])), ...ttl() } };
    case "expire": return { op: kind, body: { key: key(), ttl: r.next() < 0.15 ? r.int(-5, 0) : r.int(100, 100_000) } };
    case "incr": case "decr": return { op: kind, body: { key: key(), ...(r.next() < 0.5 ? { amount: r.int(-20, 20) } : {}), ...ttl() } };
    case "lpush": case "rpush": return { op: kind, body: { key: key(), values: Array.from({ length: r.int(1, 4) }, value), ...ttl() } };
    case "lrange": return { op: kind, body: { key: key(), ...(r.next() < 0.7 ? { start: r.int(-6, 6), stop: r.int(-6, 6) } : {}) } };
    case "keys": return { op: kind, body: { pattern: r.pick(PATTERNS), count: r.int(1, 4) } };
    default: return { op: kind };
  }
}

/** What one API call answers in Redis. */
async function inRedis(redis: RespClient, { op, body = {} }: Op): Promise<Answer> {
  const call = async (...args: (string | number)[]) => {
    const reply = await redis.command(...args);
    if (reply instanceof RespError) throw reply;
    return reply;
  };
  const json = (v: RespValue) => (v === null ? null : JSON.parse(v as string));
  const withTtl = async (key: string, existed: boolean, ttl?: number) => {
    if (ttl !== undefined) await call("EXPIRE", key, ttl);
    else if (!existed) await call("EXPIRE", key, DEFAULT_TTL);
  };
  try {
    switch (op) {
      case "set": await call("SET", body.key, JSON.stringify(body.value), "EX", body.ttl ?? DEFAULT_TTL); return { value: { ok: true } };
      case "get": return { value: { value: json(await call("GET", body.key)) } };
      case "delete": return { value: { deleted: await call("DEL", ...body.keys) } };
      case "mget": {
        const values = (await call("MGET", ...body.keys)) as RespValue[];
        return { value: { values: Object.fromEntries(body.keys.map((k: string, i: number) => [k, json(values[i]!)])) } };
      }
      case "mset": {
        await call("MSET", ...Object.entries(body.items).flatMap(([k, v]) => [k, JSON.stringify(v)]));
        for (const k of Object.keys(body.items)) await call("EXPIRE", k, body.ttl ?? DEFAULT_TTL);
        return { value: { ok: true } };
      }
      case "expire": return { value: { ok: (await call("EXPIRE", body.key, body.ttl)) === 1 } };
      case "ttl": return { value: { ttl: await call("TTL", body.key) } };
      case "incr": case "decr": {
        const existed = (await call("EXISTS", body.key)) === 1;
        const value = await call(op === "incr" ? "INCRBY" : "DECRBY", body.key, body.amount ?? 1);
        await withTtl(body.key, existed, body.ttl);
        return { value: { value } };
      }
      case "lpush": case "rpush": {
        const existed = (await call("EXISTS", body.key)) === 1;
        const length = await call(op.toUpperCase(), body.key, ...body.values.map((v: unknown) => JSON.stringify(v)));
        await withTtl(body.key, existed, body.ttl);
        return { value: { length } };
      }
      case "lpop": case "rpop": return { value: { value: json(await call(op.toUpperCase(), body.key)) } };
      case "lrange": return { value: { values: ((await call("LRANGE", body.key, body.start ?? 0, body.stop ?? -1)) as string[]).map(json) } };
      case "keys": return { value: { keys: ((await call("KEYS", body.pattern)) as string[]).sort() } };
      case "usage": return { value: { key_count: await call("DBSIZE") } };
      case "flush": {
        const deleted = await call("DBSIZE");
        await call("FLUSHDB");
        return { value: { deleted } };
      }
    }
    throw new Error(`no Redis mapping for ${op}`);
  } catch (err) {
    if (err instanceof RespError) return { error: true };
    throw err;
  }
}

/** What the store answers, with keys collected over every page. */
async function inStore(kv: (op: string, body?: unknown) => Promise<Reply>, { op, body }: Op): Promise<Answer> {
  if (op === "keys") {
    const keys: string[] = [];
    let cursor: string | null = null;
    do {
      const reply: Reply = await kv("keys", { ...body, ...(cursor ? { cursor } : {}) });
      if (reply.status !== 200) return { error: true };
      keys.push(...reply.body.keys);
      cursor = reply.body.cursor;
    } while (cursor);
    return { value: { keys: keys.sort() } };
  }
  const reply = await kv(op, body);
  if (reply.status === 400) return { error: true };
  if (reply.status !== 200) throw new Error(`${op} ${JSON.stringify(body)}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return { value: op === "usage" ? { key_count: reply.body.key_count } : reply.body };
}

describe("the key-value store against a real redis-server", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let client: RespClient;
  beforeAll(async () => {
    redis = await startRedis();
    client = await RespClient.connect(redis.port);
  });
  afterAll(async () => {
    client?.close();
    await redis?.stop();
  });

  it.each([1, 2])("gives the same answer to every operation of random sequence %i", async (seed) => {
    const account = await newAccount({ plan: "pro" });
    const { slug } = await newProject(account);
    const kv = (op: string, body?: unknown) => account.api(op === "usage" ? "GET" : "POST", `/${slug}/redis/${op}`, body);
    await client.command("FLUSHDB");
    const r = random(seed * 7919);
    const kinds = new Set<string>();
    for (let i = 0; i < OPERATIONS; i++) {
      const operation = randomOperation(r);
      const expected = await inRedis(client, operation);
      const actual = await inStore(kv, operation);
      const where = `operation ${i}: ${operation.op} ${JSON.stringify(operation.body ?? {})}`;
      if (operation.op === "ttl" && "value" in expected && "value" in actual) {
        // Both count down in real time between the two calls: allow one second.
        expect(Math.abs((actual.value as any).ttl - (expected.value as any).ttl), where).toBeLessThanOrEqual(1);
      } else {
        expect(actual, where).toEqual(expected);
      }
      kinds.add(`${operation.op}:${"error" in expected ? "error" : "ok"}`);
    }
    // The sequence exercised refusals as well as answers.
    expect([...kinds].filter((k) => k.endsWith(":error")).length).toBeGreaterThanOrEqual(3);
  }, 300_000);
});
