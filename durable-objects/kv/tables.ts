import { utf8Bytes } from "../../src/kv/utf8-bytes.ts";

/**
 * The KvStore's SQLite tables. `entries` holds one row per key: a string's JSON text in
 * `value`, or a list's bounds in `head`/`tail` with its elements in `list_items` at
 * contiguous positions (push and pop only move the ends). `bytes` is what the key counts
 * against the memory quota: UTF-8 bytes of the key plus those of its JSON value (for a
 * list, of each element's JSON).
 */

export type Entry = {
  key: string;
  kind: "string" | "list";
  value: string | null;
  expires_at: number;
  bytes: number;
  head: number;
  tail: number;
};
export type Totals = { keys: number; bytes: number };

const SCHEMA = `
  create table if not exists entries (
    key text primary key, kind text not null, value text, expires_at integer not null,
    bytes integer not null, head integer not null default 0, tail integer not null default -1
  );
  create index if not exists entries_by_expiry on entries (expires_at);
  create table if not exists list_items (
    key text not null, pos integer not null, value text not null, primary key (key, pos)
  ) without rowid;`;

export class KvTables {
  /** Live totals, kept in step with every change; null means "count again". */
  private totals: Totals | null = null;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  usage(): Totals {
    if (!this.totals) {
      const row = this.sql.exec<{ keys: number; bytes: number }>(`select count(*) as keys, coalesce(sum(bytes), 0) as bytes from entries`).one();
      this.totals = { keys: row.keys, bytes: row.bytes };
    }
    return this.totals;
  }

  /** After a rolled-back transaction the in-memory totals may be wrong: recount. */
  forgetTotals(): void {
    this.totals = null;
  }

  private adjust(keys: number, bytes: number): void {
    if (this.totals) this.totals = { keys: this.totals.keys + keys, bytes: this.totals.bytes + bytes };
  }

  /** Deletes every key whose expiry is at or before `now`; returns how many. */
  sweep(now: number): number {
    const gone = this.sql.exec<{ keys: number; bytes: number }>(`select count(*) as keys, coalesce(sum(bytes), 0) as bytes from entries where expires_at <= ?`, now).one();
    if (gone.keys === 0) return 0;
    this.sql.exec(`delete from list_items where key in (select key from entries where expires_at <= ? and kind = 'list')`, now);
    this.sql.exec(`delete from entries where expires_at <= ?`, now);
    this.adjust(-gone.keys, -gone.bytes);
    return gone.keys;
  }

  earliestExpiry(): number | null {
    return this.sql.exec<{ at: number | null }>(`select min(expires_at) as at from entries`).one().at;
  }

  entry(key: string): Entry | null {
    return this.sql.exec<Entry>(`select * from entries where key = ?`, key).toArray()[0] ?? null;
  }

  /** Writes a string value, replacing whatever the key held. */
  putString(key: string, json: string, expiresAt: number): void {
    const old = this.entry(key);
    if (old?.kind === "list") this.sql.exec(`delete from list_items where key = ?`, key);
    const bytes = utf8Bytes(key) + utf8Bytes(json);
    this.sql.exec(
      `insert into entries (key, kind, value, expires_at, bytes) values (?, 'string', ?, ?, ?)
       on conflict (key) do update set kind = 'string', value = excluded.value, expires_at = excluded.expires_at, bytes = excluded.bytes, head = 0, tail = -1`,
      key, json, expiresAt, bytes,
    );
    this.adjust(old ? 0 : 1, bytes - (old?.bytes ?? 0));
  }

  remove(key: string): boolean {
    const old = this.entry(key);
    if (!old) return false;
    if (old.kind === "list") this.sql.exec(`delete from list_items where key = ?`, key);
    this.sql.exec(`delete from entries where key = ?`, key);
    this.adjust(-1, -old.bytes);
    return true;
  }

  setExpiry(key: string, expiresAt: number): void {
    this.sql.exec(`update entries set expires_at = ? where key = ?`, expiresAt, key);
  }

  /** Pushes JSON elements at one end, creating the list when `list` is null; returns the length. */
  push(key: string, list: Entry | null, side: "left" | "right", values: string[], expiresAt: number): number {
    // An empty list is head 0, tail -1: a left push takes head-1, a right push tail+1.
    let { head, tail } = list ?? { head: 0, tail: -1 };
    let added = list ? 0 : utf8Bytes(key);
    for (const json of values) {
      const pos = side === "left" ? --head : ++tail;
      this.sql.exec(`insert into list_items (key, pos, value) values (?, ?, ?)`, key, pos, json);
      added += utf8Bytes(json);
    }
    this.sql.exec(
      `insert into entries (key, kind, value, expires_at, bytes, head, tail) values (?, 'list', null, ?, ?, ?, ?)
       on conflict (key) do update set expires_at = excluded.expires_at, bytes = bytes + ?, head = excluded.head, tail = excluded.tail`,
      key, expiresAt, added, head, tail, added,
    );
    this.adjust(list ? 0 : 1, added);
    return tail - head + 1;
  }

  /** Removes and returns the JSON element at one end; deletes the key when the list empties. */
  pop(list: Entry, side: "left" | "right"): string {
    const pos = side === "left" ? list.head : list.tail;
    const json = this.sql.exec<{ value: string }>(`select value from list_items where key = ? and pos = ?`, list.key, pos).one().value;
    if (list.head === list.tail) {
      this.remove(list.key);
      return json;
    }
    const bytes = utf8Bytes(json);
    this.sql.exec(`delete from list_items where key = ? and pos = ?`, list.key, pos);
    this.sql.exec(`update entries set bytes = bytes - ?, head = ?, tail = ? where key = ?`, bytes, side === "left" ? list.head + 1 : list.head, side === "right" ? list.tail - 1 : list.tail, list.key);
    this.adjust(0, -bytes);
    return json;
  }

  /** JSON elements at offsets from..to (inclusive, already clamped) of a list. */
  range(list: Entry, from: number, to: number): string[] {
    return this.sql
      .exec<{ value: string }>(`select value from list_items where key = ? and pos between ? and ? order by pos`, list.key, list.head + from, list.head + to)
      .toArray()
      .map((r) => r.value);
  }

  /** Up to `limit` keys after `after`, in key order. */
  keysAfter(after: string, limit: number): string[] {
    return this.sql.exec<{ key: string }>(`select key from entries where key > ? order by key limit ?`, after, limit).toArray().map((r) => r.key);
  }

  /** Deletes everything; returns how many keys there were. */
  clear(): number {
    const { keys } = this.usage();
    this.sql.exec(`delete from list_items`);
    this.sql.exec(`delete from entries`);
    this.totals = { keys: 0, bytes: 0 };
    return keys;
  }
}
