/** Byte helpers shared by the git modules: hex, concatenation, text. */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8 = (text: string): Uint8Array => encoder.encode(text);
export const text = (bytes: Uint8Array): string => decoder.decode(bytes);

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]!];
  return s;
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A 40-character lowercase hex object id. */
export const OID_PATTERN = /^[0-9a-f]{40}$/;
export const ZERO_OID = "0".repeat(40);

/**
 * Reads a byte stream in pieces of chosen sizes, buffering only what is asked for.
 * Used for request bodies, whose chunk boundaries mean nothing to the protocol.
 */
export class StreamReader {
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private buffer: Uint8Array = new Uint8Array(0);
  private done = false;
  /** Bytes handed out so far. */
  consumed = 0;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Buffers at least n bytes; false when the stream ends first. */
  async fill(n: number): Promise<boolean> {
    const parts: Uint8Array[] = [this.buffer];
    let have = this.buffer.length;
    while (have < n && !this.done) {
      const { value, done } = await this.reader.read();
      if (done) this.done = true;
      else if (value.length) {
        parts.push(value);
        have += value.length;
      }
    }
    if (parts.length > 1) this.buffer = concat(parts);
    return this.buffer.length >= n;
  }

  /** Exactly n bytes, or null when the stream ends first. */
  async read(n: number): Promise<Uint8Array | null> {
    if (!(await this.fill(n))) return null;
    const out = this.buffer.subarray(0, n);
    this.buffer = this.buffer.subarray(n);
    this.consumed += n;
    return out;
  }

  /**
   * Everything left, refusing to buffer more than `limit` bytes: past it, returns null
   * after reading and dropping the rest (up to `drainLimit`), so the client finishes
   * sending and then reads the refusal instead of seeing its upload cut off.
   */
  async rest(limit: number, drainLimit = limit * 8): Promise<Uint8Array | null> {
    let parts: Uint8Array[] = [this.buffer];
    let have = this.buffer.length;
    this.buffer = new Uint8Array(0);
    while (!this.done) {
      if (have > drainLimit) {
        await this.reader.cancel().catch(() => {});
        return null;
      }
      const { value, done } = await this.reader.read();
      if (done) this.done = true;
      else {
        have += value.length;
        if (have <= limit) parts.push(value);
        else parts = [];
      }
    }
    if (have > limit) return null;
    this.consumed += have;
    return concat(parts);
  }
}
