import { DurableObject } from "cloudflare:workers";
import { randomToken, sha256Hex } from "../src/platform/crypto.ts";

/** Single-use tokens of one project's end-user auth. */
export type TokenKind = "magic_link" | "password_reset" | "magic_code";

export type TokenRecord = {
  kind: TokenKind;
  userId: string;
  email: string;
  redirectUrl: string | null;
  /** Unix milliseconds. */
  expiresAt: number;
};

export type TokenCheck = { ok: true; record: TokenRecord } | { ok: false; reason: "invalid" | "expired" | "used" };

type Row = { kind: TokenKind; user_id: string; email: string; redirect_url: string | null; expires_at: number; used_at: number | null };

const TOKEN_BYTES = 32; // 256 random bits
const CLOCK_OFFSET_KEY = "clock_offset_ms";

/**
 * The magic-link, password-reset and magic-code tokens of one project (one object per
 * project). Tokens are 256 random bits; only their SHA-256 is stored. Checking and
 * spending happen in one synchronous step of a single-threaded object, so of concurrent
 * uses of one token exactly one succeeds. An alarm deletes tokens once they expire.
 */
export class AuthTokens extends DurableObject {
  private schemaReady = false;

  /** The object's SQLite storage, with the tokens table made on first use. */
  private get sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    if (!this.schemaReady) {
      sql.exec(`create table if not exists tokens (
        hash text primary key, kind text not null, user_id text not null, email text not null,
        redirect_url text, expires_at integer not null, used_at integer)`);
      sql.exec(`create index if not exists tokens_user on tokens (user_id)`);
      sql.exec(`create index if not exists tokens_expiry on tokens (expires_at)`);
      this.schemaReady = true;
    }
    return sql;
  }

  /** Issues a token and returns it; it is never stored in the clear. */
  async issue(input: { kind: TokenKind; userId: string; email: string; redirectUrl: string | null; ttlSeconds: number }): Promise<{ token: string; expiresAt: number }> {
    const token = randomToken(TOKEN_BYTES);
    const hash = await sha256Hex(token);
    const expiresAt = this.now() + input.ttlSeconds * 1000;
    this.sql.exec(
      `insert into tokens (hash, kind, user_id, email, redirect_url, expires_at) values (?, ?, ?, ?, ?, ?)`,
      hash, input.kind, input.userId, input.email, input.redirectUrl, expiresAt,
    );
    await this.armAlarm();
    return { token, expiresAt };
  }

  /** Says whether a token is usable, without spending it. */
  async check(kind: TokenKind, token: string): Promise<TokenCheck> {
    return this.lookup(kind, await sha256Hex(token));
  }

  /** Spends a token: the first use succeeds, every later one fails with "used". */
  async consume(kind: TokenKind, token: string): Promise<TokenCheck> {
    const hash = await sha256Hex(token);
    // From here to the update nothing awaits, so no other call runs in between.
    const result = this.lookup(kind, hash);
    if (result.ok) this.sql.exec(`update tokens set used_at = ? where hash = ?`, this.now(), hash);
    return result;
  }

  /** Withdraws every outstanding token of a user (password changed, user deleted). */
  async revokeUser(userId: string): Promise<number> {
    return this.sql.exec(`delete from tokens where user_id = ?`, userId).rowsWritten;
  }

  /** Local development and tests only: moves this object's clock forward, then expires what is due. */
  async advanceClock(seconds: number): Promise<number> {
    const kv = this.ctx.storage.kv;
    kv.put(CLOCK_OFFSET_KEY, (kv.get<number>(CLOCK_OFFSET_KEY) ?? 0) + seconds * 1000);
    return this.deleteExpired();
  }

  /** Deletes expired tokens; re-arms for the next expiry. */
  async alarm(): Promise<void> {
    this.deleteExpired();
    await this.armAlarm();
  }

  private lookup(kind: TokenKind, hash: string): TokenCheck {
    const row = this.sql.exec<Row>(`select * from tokens where hash = ? and kind = ?`, hash, kind).toArray()[0];
    if (!row) return { ok: false, reason: "invalid" };
    if (row.used_at !== null) return { ok: false, reason: "used" };
    if (row.expires_at <= this.now()) return { ok: false, reason: "expired" };
    return { ok: true, record: { kind: row.kind, userId: row.user_id, email: row.email, redirectUrl: row.redirect_url, expiresAt: row.expires_at } };
  }

  private deleteExpired(): number {
    return this.sql.exec(`delete from tokens where expires_at <= ?`, this.now()).rowsWritten;
  }

  private async armAlarm(): Promise<void> {
    const next = this.sql.exec<{ at: number | null }>(`select min(expires_at) as at from tokens`).one().at;
    if (next === null) return;
    // Alarms run on the real clock; an advanced test clock only makes tokens expire sooner.
    const at = next - (this.ctx.storage.kv.get<number>(CLOCK_OFFSET_KEY) ?? 0);
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(Math.max(at, Date.now()));
  }

  /** Milliseconds; the real clock plus any offset a test moved it by. */
  private now(): number {
    return Date.now() + (this.ctx.storage.kv.get<number>(CLOCK_OFFSET_KEY) ?? 0);
  }
}
