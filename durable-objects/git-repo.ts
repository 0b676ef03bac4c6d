import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env.ts";
import { indexKey, packKey } from "../src/git/storage-keys.ts";

/** A stored pack in the catalog; its bytes and index live in R2 (see src/git/storage-keys.ts). */
export type PackRecord = { name: string; objects: number; bytes: number; metaEnd: number };
export type StoredRef = { name: string; oid: string; peeled: string | null };
export type RepoSnapshot = { head: string; refs: StoredRef[]; packs: PackRecord[] };
/** One requested ref change; `old` and `new` are 40-hex ids, zeros meaning "absent". */
export type RefUpdate = { ref: string; old: string; new: string; peeled?: string | null };
export type RefResult = { ref: string; ok: boolean; reason?: string };
export type PushEvent = { id: number; ref: string; before: string; after: string; source: string; created_at: string };
export type DeployToken = { id: number; label: string | null; created_at: string };
export type Webhook = { id: number; kind: "platform" | "user"; url: string | null; created_at: string };
/** A queued delivery of one push event to one webhook (the GIT_EVENTS queue's message). */
export type GitEventMessage = {
  delivery_id: string;
  webhook_id: number;
  /** The repository's object name: the project id. */
  repo: string;
  payload: PushPayload;
};
export type PushPayload = {
  event: "push";
  delivery_id: string;
  ref: string;
  before: string;
  after: string;
  created: boolean;
  deleted: boolean;
  repository: { project_id: string; slug: string | null };
  source: string;
  pushed_at: string;
};

const ZERO = "0".repeat(40);
const DEFAULT_HEAD = "refs/heads/main";
/** How long a pack merged away stays readable for requests that listed it. */
const RETIRED_PACK_GRACE_MS = 10 * 60 * 1000;

/**
 * The refs, HEAD and pack catalog of one git repository (one object per project).
 * Every push is applied in one storage transaction: the new pack enters the catalog,
 * each ref moves only if it still holds the value the pusher saw (compare-and-swap),
 * and each ref that moved gets a push event in the same transaction.
 */
export class GitRepo extends DurableObject<Bindings> {
  private get sql() {
    return this.ctx.storage.sql;
  }

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(`create table if not exists refs (name text primary key, oid text not null, peeled text)`);
      this.sql.exec(`create table if not exists packs (name text primary key, objects integer not null, bytes integer not null, meta_end integer not null, created_at text not null)`);
      this.sql.exec(`create table if not exists meta (key text primary key, value text not null)`);
      this.sql.exec(
        `create table if not exists events (id integer primary key autoincrement, ref text not null, before text not null, after text not null, source text not null, created_at text not null)`,
      );
      // Packs merged away by compaction, deleted from R2 by the alarm after a grace period.
      this.sql.exec(`create table if not exists retired_packs (name text primary key, retired_at text not null)`);
      this.sql.exec(`create table if not exists deploy_tokens (id integer primary key autoincrement, token_hash text not null unique, label text, created_at text not null)`);
      this.sql.exec(`create table if not exists webhooks (id integer primary key autoincrement, kind text not null, url text, secret text not null, created_at text not null)`);
      // The outbox: one row per (event, webhook), fanned out in the push's own transaction.
      this.sql.exec(
        `create table if not exists deliveries (delivery_id text primary key, event_id integer not null, webhook_id integer not null, queued_at text)`,
      );
    });
  }

  /** One alarm serves the outbox and retired packs: keep whichever time comes first. */
  private async scheduleAlarm(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
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
  async applyPush(pack: PackRecord | null, updates: RefUpdate[], source: string, repo?: { projectId: string; slug: string }): Promise<RefResult[]> {
    const results = this.ctx.storage.transactionSync(() => {
      const now = new Date().toISOString();
      if (repo) this.sql.exec(`insert into meta (key, value) values ('repo', ?) on conflict (key) do update set value = excluded.value`, JSON.stringify(repo));
      const hooks = this.sql.exec<{ id: number }>(`select id from webhooks`).toArray();
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
        const event = this.sql.exec<{ id: number }>(`insert into events (ref, before, after, source, created_at) values (?, ?, ?, ?, ?) returning id`, u.ref, u.old, u.new, source, now).one();
        for (const h of hooks) this.sql.exec(`insert into deliveries (delivery_id, event_id, webhook_id) values (?, ?, ?)`, crypto.randomUUID(), event.id, h.id);
        results.push({ ref: u.ref, ok: true });
      }
      // The first branch pushed to an empty repository becomes HEAD unless HEAD's own branch came too.
      const headCreated = updates.some((u, i) => u.ref === head && results[i]!.ok && u.new !== ZERO);
      if (!hadRefs && firstBranch && !headCreated) this.sql.exec(`insert into meta (key, value) values ('HEAD', ?) on conflict (key) do update set value = excluded.value`, firstBranch);
      return results;
    });
    if (results.some((r) => r.ok)) await this.scheduleAlarm(Date.now());
    return results;
  }

  /**
   * Swaps merged packs for the one that holds all their objects, only if every one of
   * them is still in the catalog (another compaction may have got there first).
   */
  async replacePacks(old: string[], merged: PackRecord): Promise<boolean> {
    const done = this.ctx.storage.transactionSync(() => {
      const present = old.filter((name) => this.sql.exec(`select 1 from packs where name = ?`, name).toArray().length > 0);
      if (present.length !== old.length) return false;
      const now = new Date().toISOString();
      this.sql.exec(`insert or ignore into packs (name, objects, bytes, meta_end, created_at) values (?, ?, ?, ?, ?)`, merged.name, merged.objects, merged.bytes, merged.metaEnd, now);
      for (const name of old) {
        if (name === merged.name) continue;
        this.sql.exec(`delete from packs where name = ?`, name);
        this.sql.exec(`insert or replace into retired_packs (name, retired_at) values (?, ?)`, name, now);
      }
      return true;
    });
    if (done) await this.scheduleAlarm(Date.now() + RETIRED_PACK_GRACE_MS);
    return done;
  }

  /** Stores a read-only deploy token by its SHA-256 (the token itself is never kept). */
  addDeployToken(tokenHash: string, label: string | null): DeployToken {
    return this.sql
      .exec<DeployToken>(`insert into deploy_tokens (token_hash, label, created_at) values (?, ?, ?) returning id, label, created_at`, tokenHash, label, new Date().toISOString())
      .one();
  }

  hasDeployToken(tokenHash: string): boolean {
    return this.sql.exec(`select 1 from deploy_tokens where token_hash = ?`, tokenHash).toArray().length > 0;
  }

  listDeployTokens(): DeployToken[] {
    return this.sql.exec<DeployToken>(`select id, label, created_at from deploy_tokens order by id`).toArray();
  }

  removeDeployToken(id: number): boolean {
    return this.sql.exec(`delete from deploy_tokens where id = ?`, id).rowsWritten > 0;
  }

  /** Registers a webhook; the secret signs its deliveries (X-Hub-Signature-256). */
  addWebhook(url: string, secret: string): Webhook {
    return this.sql
      .exec<Webhook>(`insert into webhooks (kind, url, secret, created_at) values ('user', ?, ?, ?) returning id, kind, url, created_at`, url, secret, new Date().toISOString())
      .one();
  }

  /** The platform's own webhook (starts deploys on push), registered once; its integer id. */
  ensurePlatformWebhook(): number {
    const existing = this.sql.exec<{ id: number }>(`select id from webhooks where kind = 'platform'`).toArray()[0];
    if (existing) return existing.id;
    const secret = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
    return this.sql.exec<{ id: number }>(`insert into webhooks (kind, url, secret, created_at) values ('platform', null, ?, ?) returning id`, secret, new Date().toISOString()).one().id;
  }

  platformWebhookId(): number | null {
    return this.sql.exec<{ id: number }>(`select id from webhooks where kind = 'platform'`).toArray()[0]?.id ?? null;
  }

  listWebhooks(): Webhook[] {
    return this.sql.exec<Webhook>(`select id, kind, url, created_at from webhooks order by id`).toArray();
  }

  /** Removes a user webhook and its undelivered deliveries; false when there is none. */
  removeWebhook(id: number): boolean {
    const gone = this.sql.exec(`delete from webhooks where id = ? and kind = 'user'`, id).rowsWritten > 0;
    if (gone) this.sql.exec(`delete from deliveries where webhook_id = ?`, id);
    return gone;
  }

  /** Where and how to deliver to a webhook; null once it was removed. */
  webhookTarget(id: number): { kind: "platform" | "user"; url: string | null; secret: string } | null {
    return this.sql.exec<{ kind: "platform" | "user"; url: string | null; secret: string }>(`select kind, url, secret from webhooks where id = ?`, id).toArray()[0] ?? null;
  }

  /** Deliveries not yet handed to the queue. */
  pendingDeliveries(): number {
    return this.sql.exec<{ n: number }>(`select count(*) as n from deliveries where queued_at is null`).one().n;
  }

  /**
   * Hands pending deliveries to the GIT_EVENTS queue, marking them only after the queue
   * accepted them: a crash in between sends them again (at least once, never zero times).
   */
  async alarm(): Promise<void> {
    const repoMeta = this.sql.exec<{ value: string }>(`select value from meta where key = 'repo'`).toArray()[0]?.value;
    const repo = repoMeta ? (JSON.parse(repoMeta) as { projectId: string; slug: string }) : { projectId: "", slug: null };
    for (;;) {
      const rows = this.sql
        .exec<{ delivery_id: string; webhook_id: number; ref: string; before: string; after: string; source: string; created_at: string }>(
          `select d.delivery_id, d.webhook_id, e.ref, e.before, e.after, e.source, e.created_at
           from deliveries d join events e on e.id = d.event_id where d.queued_at is null order by d.event_id, d.webhook_id limit 100`,
        )
        .toArray();
      if (!rows.length) break;
      const messages = rows.map((r) => ({
        body: {
          delivery_id: r.delivery_id,
          webhook_id: r.webhook_id,
          repo: repo.projectId,
          payload: {
            event: "push",
            delivery_id: r.delivery_id,
            ref: r.ref,
            before: r.before,
            after: r.after,
            created: r.before === ZERO,
            deleted: r.after === ZERO,
            repository: { project_id: repo.projectId, slug: repo.slug },
            source: r.source,
            pushed_at: r.created_at,
          },
        } satisfies GitEventMessage,
      }));
      try {
        await this.env.GIT_EVENTS.sendBatch(messages);
      } catch (err) {
        console.error(JSON.stringify({ level: "warn", where: "git-events outbox", error: String(err) }));
        await this.scheduleAlarm(Date.now() + 30_000);
        return;
      }
      const now = new Date().toISOString();
      for (const r of rows) this.sql.exec(`update deliveries set queued_at = ? where delivery_id = ?`, now, r.delivery_id);
    }
    await this.deleteRetiredPacks(repo.projectId);
    // Delivered outbox rows and their events are kept for a day, then dropped.
    const cutoff = new Date(Date.now() - 86_400_000).toISOString();
    this.sql.exec(`delete from deliveries where queued_at is not null and queued_at < ?`, cutoff);
    this.sql.exec(`delete from events where created_at < ? and id not in (select event_id from deliveries)`, cutoff);
  }

  private async deleteRetiredPacks(projectId: string): Promise<void> {
    if (!projectId) return;
    const cutoff = new Date(Date.now() - RETIRED_PACK_GRACE_MS).toISOString();
    const due = this.sql.exec<{ name: string; retired_at: string }>(`select name, retired_at from retired_packs order by retired_at`).toArray();
    for (const p of due) {
      if (p.retired_at > cutoff) {
        await this.scheduleAlarm(Date.parse(p.retired_at) + RETIRED_PACK_GRACE_MS);
        break;
      }
      await this.env.BUCKET.delete([packKey(projectId, p.name), indexKey(projectId, p.name)]);
      this.sql.exec(`delete from retired_packs where name = ?`, p.name);
    }
  }

  /** The latest push events, oldest first. */
  recentEvents(limit = 100): PushEvent[] {
    return this.sql.exec<PushEvent>(`select id, ref, before, after, source, created_at from (select * from events order by id desc limit ?) order by id`, limit).toArray();
  }
}
