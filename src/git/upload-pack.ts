import { GIT_LIMITS } from "./limits.ts";
import { concat, OID_PATTERN, StreamReader, text } from "./bytes.ts";
import { pkt, pktLines, PktError, readPkt } from "./pkt-line.ts";
import { bytesResponse, packResponse } from "./pack-stream.ts";
import { Walker } from "./walk.ts";
import type { RepoStore } from "./repo-store.ts";

/**
 * git-upload-pack over stateless HTTP, protocol v0 (gitprotocol-pack "Packfile
 * negotiation"), multi_ack_detailed: each request carries the wants, the client's shallow
 * commits and depth, and the haves; without "done" the answer is ACKs and NAK, with it the
 * pack follows, in side-band-64k when asked.
 */

export type UploadRequest = {
  wants: string[];
  caps: Set<string>;
  clientShallow: Set<string>;
  depth: number;
  /** deepen-relative: the depth counts from the client's shallow commits. */
  relative: boolean;
  haves: string[];
  done: boolean;
  /** Whether the have list was closed by a flush (a round of negotiation to answer). */
  haveFlush: boolean;
};

export async function readUploadRequest(body: ReadableStream<Uint8Array>): Promise<UploadRequest> {
  const reader = new StreamReader(body);
  const req: UploadRequest = { wants: [], caps: new Set(), clientShallow: new Set(), depth: 0, relative: false, haves: [], done: false, haveFlush: false };
  let flushes = 0;
  for (;;) {
    const p = await readPkt(reader);
    if (!p) break;
    if (p.kind === "flush" && ++flushes > 1) req.haveFlush = true;
    if (p.kind !== "data") continue;
    if (reader.consumed > GIT_LIMITS.maxNegotiationBytes) throw new PktError("negotiation request too large");
    const line = text(p.data).replace(/\n$/, "");
    const [word, arg = "", ...rest] = line.split(" ");
    if (word === "want" && OID_PATTERN.test(arg)) {
      if (req.wants.length === 0) {
        req.caps = new Set(rest);
        req.relative = req.caps.has("deepen-relative");
      }
      req.wants.push(arg);
    } else if (word === "have" && OID_PATTERN.test(arg)) req.haves.push(arg);
    else if (word === "shallow" && OID_PATTERN.test(arg)) req.clientShallow.add(arg);
    else if (word === "deepen" && /^\d+$/.test(arg)) req.depth = Number(arg);
    else if (word === "deepen-relative") req.relative = true;
    else if (word === "done") req.done = true;
    else if (word === "deepen-since" || word === "deepen-not" || word === "filter") throw new PktError(`${word} is not supported; use --depth`);
    else throw new PktError(`unexpected line "${line.slice(0, 80)}"`);
  }
  return req;
}

export async function uploadPack(store: RepoStore, req: UploadRequest): Promise<ReadableStream<Uint8Array>> {
  for (const w of req.wants) if (!store.has(w)) throw new PktError(`upload-pack: not our ref ${w}`);
  const walker = new Walker(store);
  const head: Uint8Array[] = [];
  const common = req.haves.filter((h) => store.has(h));
  // Without "done" the answer is only the negotiation (upload-pack stops at the flush in
  // stateless mode); the pack comes with the request that says "done".
  const selection = req.done ? await walker.select({ wants: req.wants, common, depth: req.depth, relative: req.relative, clientShallow: req.clientShallow }) : null;
  if (req.depth > 0) {
    const info = selection ?? (await walker.select({ wants: req.wants, common, depth: req.depth, relative: req.relative, clientShallow: req.clientShallow }));
    head.push(pktLines([...info.shallow.map((s) => `shallow ${s}`), ...info.unshallow.map((s) => `unshallow ${s}`)]));
  }
  for (const c of common) head.push(pkt(`ACK ${c} common\n`));
  if (!selection) {
    // A request that ends after the want list (the first round of a shallow fetch) gets
    // only the shallow list; a round of haves ends with NAK.
    if (req.haveFlush || req.haves.length) head.push(pkt("NAK\n"));
    return bytesResponse(concat(head));
  }
  head.push(pkt(common.length ? `ACK ${common[common.length - 1]}\n` : "NAK\n"));
  const band = req.caps.has("side-band-64k") ? 65515 : req.caps.has("side-band") ? 999 : 0;
  return packResponse(store, concat(head), selection.objects, band);
}
