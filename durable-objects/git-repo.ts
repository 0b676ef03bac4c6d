import { DurableObject } from "cloudflare:workers";

/** A stored pack in the catalog; its bytes and index live in R2 (see src/git/storage-keys.ts). */
export type PackRecord = { name: string; objects: number; bytes: number; metaEnd: number };
export type StoredRef = { name: string; oid: string; peeled: string | null };
export type RepoSnapshot = { head: string; refs: StoredRef[]; packs: PackRecord[] };
/** One requested ref change; `old` and `new` are 40-hex ids, zeros meaning "absent". */
export type RefUpdate = { ref: string; old: string; new: string; peeled?: string | null };
export type RefResult = { ref: string; ok: boolean; reason?: string };
export type PushEvent = { id: number; ref: string; before: string; after: string; source: string; created_at: string };

const ZERO = "0".repeat(40);
const DEFAULT_HEAD = "refs/heads/main";

/**
 * The refs, HEAD and pack catalog of one git repository (one object per project).
 * Every push is applied in one storage transaction: the new pack enters the catalog,
 * each ref moves only if it still holds the value the pusher saw (compare-and-swap),
 * and each ref that moved gets a push event in the same transaction.
 */
export class GitRepo extends DurableObject {
  private get sql() {
    return this.ctx.storage.sql;
  }

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(`create table if not exists refs (name text primary key, oid text not null, peeled text)`);
      this.sql.exec(`create table if not exists packs (name text primary key, objects integer not null, bytes integer not null, meta_end integer not null, created_at text not null)`);
      this.sql.exec(`create table if not exists meta (key text primary key, value text not null)`);
      this.sql.exec(
        `create table if not exists events (id integer primary key autoincrement, ref text not null, before text not null, after text not null, source text not null, created_at text not null, sent_at text)`,
      );
    });
  }

  private head(): string {
    return this.sql.exec<{ value: string }>(`select value from meta where key = 'HEAD'`).toArray()[0]?.value ?? DEFAULT_HEAD;
  }

  /** Refs sorted by name (C locale, as the protocol wants), HEAD's target and the packs. */
  snapshot(): RepoSnapshot {
    const refs = this.sql.exec<StoredRef>(`select name, oid, peeled from refs order by name`).toArray();
    const packs = this.sql
      .exec<{ name: string; objects: number; bytes: number; meta_end: number }>(`select name, objects, bytes, meta_end from packs order by created_at desc, name`)
      .toArray()
      .map((p) => ({ name: p.name, objects: p.objects, bytes: p.bytes, metaEnd: p.meta_end }));
    return { head: this.head(), refs: [...refs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), packs };
  }

  /**
   * Registers the pack (if any) and applies each update whose `old` matches the ref's
   * current value. Updates are judged one by one; a failed one changes nothing.
   */
  applyPush(pack: PackRecord | null, updates: RefUpdate[], source: string): RefResult[] {
    return this.ctx.storage.transactionSync(() => {
      const now = new Date().toISOString();
      if (pack) {
        this.sql.exec(`insert or ignore into packs (name, objects, bytes, meta_end, created_at) values (?, ?, ?, ?, ?)`, pack.name, pack.objects, pack.bytes, pack.metaEnd, now);
      }
      const head = this.head();
      const hadRefs = this.sql.exec(`select 1 from refs limit 1`).toArray().length > 0;
      const results: RefResult[] = [];
      let firstBranch: string | null = null;
      for (const u of updates) {
        const current = this.sql.exec<{ oid: string }>(`select oid from refs where name = ?`, u.ref).toArray()[0]?.oid ?? ZERO;
        if (current !== u.old) {
          results.push({ ref: u.ref, ok: false, reason: current === ZERO ? "stale info (the ref does not exist any more)" : "stale info (fetch first: the ref moved since you read it)" });
          continue;
        }
        if (u.new === ZERO) {
          if (u.ref === head) {
            results.push({ ref: u.ref, ok: false, reason: "deletion of the current branch prohibited" });
            continue;
          }
          this.sql.exec(`delete from refs where name = ?`, u.ref);
        } else {
          this.sql.exec(`insert into refs (name, oid, peeled) values (?, ?, ?) on conflict (name) do update set oid = excluded.oid, peeled = excluded.peeled`, u.ref, u.new, u.peeled ?? null);
          if (current === ZERO && !firstBranch && u.ref.startsWith("refs/heads/")) firstBranch = u.ref;
        }
        this.sql.exec(`insert into events (ref, before, after, source, created_at) values (?, ?, ?, ?, ?)`, u.ref, u.old, u.new, source, now);
        results.push({ ref: u.ref, ok: true });
      }
      // The first branch pushed to an empty repository becomes HEAD unless HEAD's own branch came too.
      const headCreated = updates.some((u, i) => u.ref === head && results[i]!.ok && u.new !== ZERO);
      if (!hadRefs && firstBranch && !headCreated) this.sql.exec(`insert into meta (key, value) values ('HEAD', ?) on conflict (key) do update set value = excluded.value`, firstBranch);
      return results;
    });
  }

  /** Push events not yet handed to the queue, oldest first. */
  pendingEvents(limit = 100): PushEvent[] {
    return this.sql.exec<PushEvent>(`select id, ref, before, after, source, created_at from events where sent_at is null order by id limit ?`, limit).toArray();
  }
}
