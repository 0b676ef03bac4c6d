/**
 * What the Worker sends a KvStore and what it answers. Values cross as JSON text (the
 * Worker has already encoded and size-checked them) and come back as parsed JSON.
 */

type Json = string;

export type StoreCommand =
  | { op: "set"; key: string; value: Json; ttl?: number }
  | { op: "get"; key: string }
  | { op: "delete"; keys: string[] }
  | { op: "mget"; keys: string[] }
  | { op: "mset"; items: [string, Json][]; ttl?: number }
  | { op: "expire"; key: string; ttl: number }
  | { op: "ttl"; key: string }
  | { op: "incr" | "decr"; key: string; amount?: number; ttl?: number }
  | { op: "lpush" | "rpush"; key: string; values: Json[]; ttl?: number }
  | { op: "lpop" | "rpop"; key: string }
  | { op: "lrange"; key: string; start?: number; stop?: number }
  | { op: "keys"; pattern?: string; count?: number; cursor?: string | null }
  | { op: "flush" };

export type StoreOp = StoreCommand["op"];

/** The reply of each operation, as the API returns it. */
export type StoreReply =
  | { ok: boolean }
  | { value: unknown }
  | { deleted: number }
  | { values: Record<string, unknown> | unknown[] }
  | { ttl: number }
  | { length: number }
  | { keys: string[]; cursor: string | null };

/** A refused command: the whole call changed nothing. `index` is the failing command's. */
export type StoreFailure = { status: 400 | 402; code: string; detail: string; index: number };

export type StoreResult = { replies: StoreReply[] } | { failure: StoreFailure };

export type StoreUsage = { key_count: number; memory_bytes: number };
