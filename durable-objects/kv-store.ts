import { DurableObject } from "cloudflare:workers";
import { applyCommand, Refusal } from "./kv/commands.ts";
import { KvTables } from "./kv/tables.ts";
import type { StoreCommand, StoreResult, StoreUsage } from "./kv/types.ts";

export type { StoreCommand, StoreResult, StoreUsage } from "./kv/types.ts";

const channelTag = (channel: string) => `ch:${channel}`;

/**
 * One project's key-value store: SQLite tables in its own Durable Object, so tenants are
 * isolated by construction and a call runs alone (atomic counters and lists). Expired keys
 * are swept at the start of every call, so none is ever returned; an alarm at the next
 * expiry reclaims their storage when nobody calls. Subscribers are hibernating WebSockets
 * tagged with their channels, so `publish` reaches them and counts them.
 */
export class KvStore extends DurableObject {
  private readonly tables: KvTables;
  /** When the reclaim alarm is set (ms), null for none; undefined until first read. */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.tables = new KvTables(ctx.storage.sql);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /**
   * Runs commands in order as one transaction: either every command applies and each
   * reply is returned, or the first refusal is returned and nothing changed.
   */
  async execute(commands: StoreCommand[], quotaBytes: number): Promise<StoreResult> {
    const now = Date.now();
    let replies;
    try {
      replies = this.ctx.storage.transactionSync(() => {
        this.tables.sweep(now);
        const ctx = { tables: this.tables, now, quotaBytes };
        return commands.map((cmd, index) => {
          try {
            return applyCommand(ctx, cmd);
          } catch (err) {
            if (err instanceof Refusal) throw Object.assign(err, { index });
            throw err;
          }
        });
      });
    } catch (err) {
      this.tables.forgetTotals();
      if (err instanceof Refusal) {
        const { status, code, detail } = err;
        return { failure: { status, code, detail, index: (err as Refusal & { index: number }).index } };
      }
      throw err;
    }
    await this.scheduleReclaim();
    return { replies };
  }

  /** Live keys and the bytes they count against the quota. */
  async usage(): Promise<StoreUsage> {
    const { keys, bytes } = this.ctx.storage.transactionSync(() => {
      this.tables.sweep(Date.now());
      return this.tables.usage();
    });
    return { key_count: keys, memory_bytes: bytes };
  }

  /** Sends a message to the channel's subscribers; returns how many it reached. */
  async publish(channel: string, message: unknown): Promise<number> {
    const frame = JSON.stringify({ type: "message", channel, message });
    let receivers = 0;
    for (const ws of this.ctx.getWebSockets(channelTag(channel))) {
      try {
        ws.send(frame);
        receivers++;
      } catch {
        // A socket closing right now is not a receiver.
      }
    }
    return receivers;
  }

  /** Only for the subscribe upgrade: accepts a hibernating WebSocket tagged with its channels. */
  async fetch(request: Request): Promise<Response> {
    const channels = new URL(request.url).searchParams.getAll("channel");
    if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket" || channels.length === 0) {
      return new Response("expected a WebSocket upgrade with channels", { status: 400 });
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server, channels.map(channelTag));
    server.send(JSON.stringify({ type: "subscribed", channels }));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      ws.close(code, reason);
    } catch {
      // Already closed by the runtime.
    }
  }

  /** Reclaims the storage of expired keys, then waits for the next expiry. */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    this.ctx.storage.transactionSync(() => this.tables.sweep(Date.now()));
    await this.scheduleReclaim();
  }

  /** Keeps an alarm at the next expiry (rounded up to the second, to batch nearby ones). */
  private async scheduleReclaim(): Promise<void> {
    const earliest = this.tables.earliestExpiry();
    if (earliest === null) return;
    const at = Math.ceil(earliest / 1000) * 1000;
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt === null || at < this.alarmAt) {
      await this.ctx.storage.setAlarm(at);
      this.alarmAt = at;
    }
  }
}
