import { concat, StreamReader, text, utf8 } from "./bytes.ts";

/**
 * pkt-line framing (gitprotocol-common): four hex digits giving the length of the line
 * including themselves, then the payload. "0000" is a flush, "0001" a delimiter and
 * "0002" a response end (protocol v2). A payload is at most 65516 bytes.
 */

export const MAX_PKT_PAYLOAD = 65516;
export const FLUSH = utf8("0000");
export const DELIM = utf8("0001");
export const RESPONSE_END = utf8("0002");

/** One pkt-line holding `payload` (a string gets no newline added). */
export function pkt(payload: string | Uint8Array): Uint8Array {
  const body = typeof payload === "string" ? utf8(payload) : payload;
  if (body.length > MAX_PKT_PAYLOAD) throw new Error(`pkt-line payload of ${body.length} bytes exceeds ${MAX_PKT_PAYLOAD}`);
  const out = new Uint8Array(body.length + 4);
  out.set(utf8((body.length + 4).toString(16).padStart(4, "0")));
  out.set(body, 4);
  return out;
}

/** Several text lines as pkt-lines, each ending in "\n", followed by a flush. */
export function pktLines(lines: string[], end: Uint8Array | null = FLUSH): Uint8Array {
  const parts = lines.map((l) => pkt(l.endsWith("\n") ? l : `${l}\n`));
  if (end) parts.push(end);
  return concat(parts);
}

export type Pkt = { kind: "data"; data: Uint8Array } | { kind: "flush" } | { kind: "delim" } | { kind: "end" };

export class PktError extends Error {}

/** Reads one pkt-line from the stream; null at a clean end of stream. */
export async function readPkt(reader: StreamReader): Promise<Pkt | null> {
  const head = await reader.read(4);
  if (!head) return null;
  const length = parseInt(text(head), 16);
  if (!/^[0-9a-fA-F]{4}$/.test(text(head)) || Number.isNaN(length)) throw new PktError(`bad pkt-line length "${text(head)}"`);
  if (length === 0) return { kind: "flush" };
  if (length === 1) return { kind: "delim" };
  if (length === 2) return { kind: "end" };
  if (length < 4) throw new PktError(`bad pkt-line length ${length}`);
  const data = await reader.read(length - 4);
  if (!data) throw new PktError("stream ended inside a pkt-line");
  return { kind: "data", data };
}

/** The text of a data pkt without its trailing newline. */
export function pktText(p: Pkt): string {
  if (p.kind !== "data") return "";
  const s = text(p.data);
  return s.endsWith("\n") ? s.slice(0, -1) : s;
}

/**
 * Side-band framing: each packet's first byte names the band (1 data, 2 progress,
 * 3 fatal error). With side-band-64k a packet carries up to 65515 bytes of data.
 */
export function sideBand(band: 1 | 2 | 3, data: Uint8Array, maxPayload = 65515): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < data.length || (at === 0 && data.length === 0); at += maxPayload) {
    const piece = data.subarray(at, at + maxPayload);
    const body = new Uint8Array(piece.length + 1);
    body[0] = band;
    body.set(piece, 1);
    out.push(pkt(body));
    if (data.length === 0) break;
  }
  return out;
}
