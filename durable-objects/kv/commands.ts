import { KV_LIMITS } from "../../src/kv/limits.ts";
import { humanBytes } from "../../src/kv/human-bytes.ts";
import { globToRegExp } from "./glob.ts";
import type { Entry, KvTables } from "./tables.ts";
import type { StoreCommand, StoreReply } from "./types.ts";

/** A command the store refuses; thrown inside the transaction so nothing is kept. */
export class Refusal extends Error {
  constructor(readonly status: 400 | 402, readonly code: string, readonly detail: string) {
    super(detail);
  }
}

export type ApplyContext = { tables: KvTables; now: number; quotaBytes: number };

const WRITES = new Set<StoreCommand["op"]>(["set", "mset", "incr", "decr", "lpush", "rpush"]);

/**
 * Applies one command with Redis semantics. Expired keys are already swept, so every
 * entry seen here is live. A write that leaves the store over its quota is refused.
 */
export function applyCommand(ctx: ApplyContext, cmd: StoreCommand): StoreReply {
  const before = ctx.tables.usage().bytes;
  const reply = run(ctx, cmd);
  if (WRITES.has(cmd.op)) {
    const after = ctx.tables.usage().bytes;
    if (after > before && after > ctx.quotaBytes) {
      throw new Refusal(402, "kv_quota_exceeded",
        `The key-value store is full: this write would use ${after} of the plan's ${ctx.quotaBytes} bytes (${humanBytes(ctx.quotaBytes)}). ` +
          `Delete keys, shorten TTLs, or upgrade the plan.`);
    }
  }
  return reply;
}

function run({ tables, now }: ApplyContext, cmd: StoreCommand): StoreReply {
  const expiry = (ttl: number | undefined, existing: Entry | null) =>
    ttl !== undefined ? now + ttl * 1000 : existing ? existing.expires_at : now + KV_LIMITS.defaultTtlSeconds * 1000;
  switch (cmd.op) {
    case "set":
      tables.putString(cmd.key, cmd.value, now + (cmd.ttl ?? KV_LIMITS.defaultTtlSeconds) * 1000);
      return { ok: true };
    case "mset":
      for (const [key, json] of cmd.items) tables.putString(key, json, now + (cmd.ttl ?? KV_LIMITS.defaultTtlSeconds) * 1000);
      return { ok: true };
    case "get": {
      const entry = stringEntry(tables, cmd.key, "get");
      return { value: entry ? JSON.parse(entry.value!) : null };
    }
    case "mget": {
      const values: Record<string, unknown> = {};
      for (const key of cmd.keys) {
        const entry = tables.entry(key);
        // Like MGET: a key holding a list reads as missing rather than failing the call.
        values[key] = entry?.kind === "string" ? JSON.parse(entry.value!) : null;
      }
      return { values };
    }
    case "delete":
      return { deleted: cmd.keys.filter((key) => tables.remove(key)).length };
    case "expire": {
      if (!tables.entry(cmd.key)) return { ok: false };
      // Like EXPIRE: a ttl of zero or less deletes the key.
      if (cmd.ttl <= 0) tables.remove(cmd.key);
      else tables.setExpiry(cmd.key, now + cmd.ttl * 1000);
      return { ok: true };
    }
    case "ttl": {
      const entry = tables.entry(cmd.key);
      // Like TTL: -2 for a missing key, otherwise seconds rounded to the nearest.
      return { ttl: entry ? Math.floor((entry.expires_at - now + 500) / 1000) : -2 };
    }
    case "incr":
    case "decr": {
      const entry = stringEntry(tables, cmd.key, cmd.op);
      const current = entry ? JSON.parse(entry.value!) : 0;
      if (!Number.isSafeInteger(current)) {
        throw new Refusal(400, "not_an_integer", `Key "${cmd.key}" holds ${describe(current)}, not an integer; ${cmd.op} needs an integer value (or a missing key, which counts from 0).`);
      }
      const amount = cmd.amount ?? 1;
      const next = cmd.op === "incr" ? current + amount : current - amount;
      if (!Number.isSafeInteger(next)) {
        throw new Refusal(400, "integer_overflow", `${cmd.op} would take "${cmd.key}" beyond ±${Number.MAX_SAFE_INTEGER}, the largest integer a JSON client can read exactly.`);
      }
      tables.putString(cmd.key, String(next), expiry(cmd.ttl, entry));
      return { value: next };
    }
    case "lpush":
    case "rpush": {
      const list = listEntry(tables, cmd.key, cmd.op);
      return { length: tables.push(cmd.key, list, cmd.op === "lpush" ? "left" : "right", cmd.values, expiry(cmd.ttl, list)) };
    }
    case "lpop":
    case "rpop": {
      const list = listEntry(tables, cmd.key, cmd.op);
      return { value: list ? JSON.parse(tables.pop(list, cmd.op === "lpop" ? "left" : "right")) : null };
    }
    case "lrange": {
      const list = listEntry(tables, cmd.key, "lrange");
      if (!list) return { values: [] };
      const bounds = rangeBounds(list.tail - list.head + 1, cmd.start ?? 0, cmd.stop ?? -1);
      return { values: bounds ? tables.range(list, bounds[0], bounds[1]).map((json) => JSON.parse(json)) : [] };
    }
    case "keys":
      return scanKeys(tables, cmd.pattern ?? "*", cmd.count ?? KV_LIMITS.defaultScanCount, cmd.cursor ?? null);
    case "flush":
      return { deleted: tables.clear() };
  }
}

/** LRANGE's index rules: negatives count from the end, out-of-range ends are clamped. */
export function rangeBounds(length: number, start: number, stop: number): [number, number] | null {
  if (start < 0) start = Math.max(0, start + length);
  if (stop < 0) stop += length;
  if (stop >= length) stop = length - 1;
  return start > stop || start >= length ? null : [start, stop];
}

function stringEntry(tables: KvTables, key: string, op: string): Entry | null {
  const entry = tables.entry(key);
  if (entry?.kind === "list") throw wrongType(key, "a list", op, "a string value; use lrange, lpop or rpop for lists");
  return entry;
}

function listEntry(tables: KvTables, key: string, op: string): Entry | null {
  const entry = tables.entry(key);
  if (entry?.kind === "string") throw wrongType(key, "a string value", op, "a list; use get and set for plain values");
  return entry;
}

const wrongType = (key: string, holds: string, op: string, needs: string) =>
  new Refusal(400, "wrong_type", `Key "${key}" holds ${holds}, but ${op} needs ${needs} (or delete the key first).`);

function describe(value: unknown): string {
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "string") return "a string";
  if (Array.isArray(value)) return "an array";
  return `a${typeof value === "object" ? "n object" : ` ${typeof value}`}`;
}

/** Cursor-based KEYS: up to `count` matches, examining a bounded number of keys per call. */
function scanKeys(tables: KvTables, pattern: string, count: number, cursor: string | null): StoreReply {
  const match = globToRegExp(pattern);
  let after = cursor === null ? "" : decodeCursor(cursor);
  const keys: string[] = [];
  let examined = 0;
  const batch = 1000;
  for (;;) {
    const page = tables.keysAfter(after, batch);
    for (const key of page) {
      after = key;
      examined++;
      if (match.test(key)) keys.push(key);
      if (keys.length >= count || examined >= KV_LIMITS.maxScanExamined) {
        return { keys, cursor: tables.keysAfter(after, 1).length ? encodeCursor(after) : null };
      }
    }
    if (page.length < batch) return { keys, cursor: null };
  }
}

const encodeCursor = (key: string) => btoa(String.fromCharCode(...new TextEncoder().encode(key))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function decodeCursor(cursor: string): string {
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    throw new Refusal(400, "invalid_cursor", "cursor is not one that keys returned; start again without a cursor.");
  }
}
