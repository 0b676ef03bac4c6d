/**
 * HMAC-SHA256 request signing between the Worker and the runner, in both directions.
 * WebCrypto only, so the Worker (workerd) and the runner (Node) share this file.
 *
 * The signature covers `${timestamp}\n${METHOD}\n${path?query}\n${body}`; a request is
 * accepted only within `windowSeconds` of its timestamp, and a ReplayGuard refuses the
 * same signature twice within that window.
 */

export const SIGNATURE_HEADER = "x-slipway-signature";
export const TIMESTAMP_HEADER = "x-slipway-timestamp";
export const DEFAULT_WINDOW_SECONDS = 300;

const encoder = new TextEncoder();

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

function canonical(timestamp: string, method: string, pathAndQuery: string, body: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathAndQuery}\n${body}`;
}

/** Headers that sign one request. `nowMs` is injectable for tests. */
export async function signRequest(secret: string, method: string, pathAndQuery: string, body: string, nowMs = Date.now()): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: `v1=${await hmacHex(secret, canonical(timestamp, method, pathAndQuery, body))}` };
}

export type Verdict = { ok: true; signature: string } | { ok: false; reason: string };

/** Checks a request's signature and timestamp; never throws. */
export async function verifyRequest(
  secret: string,
  headers: { get(name: string): string | null },
  method: string,
  pathAndQuery: string,
  body: string,
  opts: { nowMs?: number; windowSeconds?: number } = {},
): Promise<Verdict> {
  const timestamp = headers.get(TIMESTAMP_HEADER);
  const signature = headers.get(SIGNATURE_HEADER);
  if (!timestamp || !signature) return { ok: false, reason: "missing signature headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  const age = Math.abs((opts.nowMs ?? Date.now()) / 1000 - Number(timestamp));
  if (age > (opts.windowSeconds ?? DEFAULT_WINDOW_SECONDS)) return { ok: false, reason: "timestamp outside the replay window" };
  const expected = `v1=${await hmacHex(secret, canonical(timestamp, method, pathAndQuery, body))}`;
  if (!constantTimeEqual(expected, signature)) return { ok: false, reason: "bad signature" };
  return { ok: true, signature };
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Remembers accepted signatures for the replay window, so a captured request works once. */
export class ReplayGuard {
  private seen = new Map<string, number>();
  private readonly windowSeconds: number;

  constructor(windowSeconds = DEFAULT_WINDOW_SECONDS) {
    this.windowSeconds = windowSeconds;
  }

  /** true the first time a signature is seen within the window. */
  firstUse(signature: string, nowMs = Date.now()): boolean {
    const cutoff = nowMs - 2 * this.windowSeconds * 1000;
    if (this.seen.size > 1000) for (const [sig, at] of this.seen) if (at < cutoff) this.seen.delete(sig);
    if (this.seen.has(signature)) return false;
    this.seen.set(signature, nowMs);
    return true;
  }
}
