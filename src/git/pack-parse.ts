import { toHex } from "./bytes.ts";
import { sha1, objectId, OBJECT_TYPES, type ObjectType } from "./hash.ts";
import { inflateZlib } from "./inflate.ts";
import { inflate, compressObject } from "./zlib.ts";
import { applyDelta } from "./delta.ts";
import { GITLINK_MODE, parseCommit, parseTag, parseTree } from "./objects.ts";

/**
 * Reads a pack as it arrives from `git push` (gitformat-pack): checks the header, the
 * object count and the trailing SHA-1, resolves OFS_DELTA and REF_DELTA entries, and
 * hands back every object undeltified, zlib-compressed, with the ids it references.
 */

export class PackError extends Error {}

export type PackObject = {
  oid: string;
  type: ObjectType;
  size: number;
  /** The object's data as one zlib stream (reused from the input when it was not a delta). */
  compressed: Uint8Array;
  /** Ids this object points at: a commit's tree and parents, a tree's entries, a tag's target. */
  links: string[];
};

const OFS_DELTA = 6;
const REF_DELTA = 7;

type Entry = {
  offset: number;
  kind: number;
  size: number;
  dataStart: number;
  dataEnd: number;
  baseOffset?: number;
  baseOid?: string;
  /** Delta instructions, kept until the entry is resolved. */
  delta?: Uint8Array;
  oid?: string;
  type?: ObjectType;
};

/** Reads a base the pack does not carry (a thin pack); null when it does not exist. */
export type ExternalBase = (oid: string) => Promise<{ type: ObjectType; data: Uint8Array } | null>;

/** What a parsed object points at, for the connectivity check. */
export function objectLinks(type: ObjectType, data: Uint8Array): string[] {
  if (type === "commit") {
    const c = parseCommit(data);
    return [c.tree, ...c.parents];
  }
  if (type === "tree") return parseTree(data).filter((e) => e.mode !== GITLINK_MODE).map((e) => e.oid);
  if (type === "tag") return [parseTag(data).object];
  return [];
}

/** Entry header: type in bits 4-6 of the first byte, size in 4 + 7n bits, little-endian. */
function readEntryHeader(buf: Uint8Array, at: number): { kind: number; size: number; at: number } {
  let byte = buf[at++]!;
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  let shift = 4;
  while (byte & 0x80) {
    if (at >= buf.length) throw new PackError("truncated object header");
    byte = buf[at++]!;
    size += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  }
  return { kind, size, at };
}

/** OFS_DELTA's base distance: big-endian 7-bit groups, each continuation adding one. */
function readOffset(buf: Uint8Array, at: number): { distance: number; at: number } {
  let byte = buf[at++]!;
  let distance = byte & 0x7f;
  while (byte & 0x80) {
    byte = buf[at++]!;
    distance = (distance + 1) * 128 + (byte & 0x7f);
  }
  return { distance, at };
}

/**
 * `maxStoredBytes` bounds the compressed size of the undeltified objects: a small pack of
 * deltas can expand a lot, and everything parsed is held until it is stored.
 */
export async function parsePack(buf: Uint8Array, external: ExternalBase = async () => null, maxStoredBytes = Infinity): Promise<PackObject[]> {
  if (buf.length < 32 || buf[0] !== 0x50 || buf[1] !== 0x41 || buf[2] !== 0x43 || buf[3] !== 0x4b) throw new PackError("not a pack file");
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw new PackError(`unsupported pack version ${version}`);
  const count = view.getUint32(8);
  const trailerAt = buf.length - 20;
  const checksum = await sha1(buf.subarray(0, trailerAt));
  if (toHex(checksum) !== toHex(buf.subarray(trailerAt))) throw new PackError("pack checksum mismatch");

  const entries: Entry[] = [];
  let stored = 0;
  const byOffset = new Map<number, Entry>();
  const byOid = new Map<string, Entry>();
  const objects: PackObject[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at >= trailerAt) throw new PackError(`pack says ${count} objects but holds ${i}`);
    const offset = at;
    const head = readEntryHeader(buf, at);
    at = head.at;
    const entry: Entry = { offset, kind: head.kind, size: head.size, dataStart: 0, dataEnd: 0 };
    if (head.kind === OFS_DELTA) {
      const o = readOffset(buf, at);
      at = o.at;
      entry.baseOffset = offset - o.distance;
      if (entry.baseOffset < 12) throw new PackError("delta base offset before the start of the pack");
    } else if (head.kind === REF_DELTA) {
      entry.baseOid = toHex(buf.subarray(at, at + 20));
      at += 20;
    } else if (head.kind < 1 || head.kind > 4) throw new PackError(`invalid object type ${head.kind}`);
    entry.dataStart = at;
    let inflated;
    try {
      inflated = inflateZlib(buf.subarray(0, trailerAt), at, head.size);
    } catch (err) {
      throw new PackError(`object at offset ${offset}: ${(err as Error).message}`);
    }
    at += inflated.consumed;
    entry.dataEnd = at;
    if (head.kind === OFS_DELTA || head.kind === REF_DELTA) entry.delta = inflated.data;
    else {
      entry.type = OBJECT_TYPES[head.kind - 1]!;
      entry.oid = await objectId(entry.type, inflated.data);
      byOid.set(entry.oid, entry);
      stored += entry.dataEnd - entry.dataStart;
      objects.push({ oid: entry.oid, type: entry.type, size: head.size, compressed: buf.subarray(entry.dataStart, entry.dataEnd), links: objectLinks(entry.type, inflated.data) });
    }
    entries.push(entry);
    byOffset.set(offset, entry);
  }
  if (at !== trailerAt) throw new PackError(`pack has ${trailerAt - at} unexpected bytes after its ${count} objects`);

  // Resolved data of recent bases, so chains of deltas do not re-inflate their bases.
  const cache = new Map<Entry, Uint8Array>();
  let cached = 0;
  const remember = (e: Entry, data: Uint8Array) => {
    cache.set(e, data);
    cached += data.length;
    for (const [k, v] of cache) {
      if (cached <= 16 * 1024 * 1024) break;
      cache.delete(k);
      cached -= v.length;
    }
  };
  const dataOf = async (e: Entry): Promise<Uint8Array> => {
    const hit = cache.get(e);
    if (hit) return hit;
    let data: Uint8Array;
    if (e.delta === undefined && e.kind !== OFS_DELTA && e.kind !== REF_DELTA) data = await inflate(buf.subarray(e.dataStart, e.dataEnd));
    else data = applyDelta(await dataOf(baseOf(e)!), e.delta ?? (await inflate(buf.subarray(e.dataStart, e.dataEnd))).subarray(0));
    remember(e, data);
    return data;
  };
  const baseOf = (e: Entry): Entry | undefined => (e.baseOffset !== undefined ? byOffset.get(e.baseOffset) : byOid.get(e.baseOid!));

  // Resolve in rounds: a delta is ready once its base's id and type are known.
  let pending = entries.filter((e) => e.type === undefined);
  while (pending.length) {
    const next: Entry[] = [];
    for (const e of pending) {
      const base = baseOf(e);
      let type: ObjectType;
      let data: Uint8Array;
      if (base?.type) {
        type = base.type;
        data = applyDelta(await dataOf(base), e.delta!);
      } else if (!base && e.baseOid) {
        const ext = await external(e.baseOid);
        if (!ext) throw new PackError(`delta against ${e.baseOid}, which neither the pack nor the repository has`);
        type = ext.type;
        data = applyDelta(ext.data, e.delta!);
      } else if (!base) throw new PackError(`delta at offset ${e.offset} has no base object at offset ${e.baseOffset}`);
      else {
        next.push(e);
        continue;
      }
      e.type = type;
      e.oid = await objectId(type, data);
      remember(e, data);
      e.delta = undefined;
      if (!byOid.has(e.oid)) byOid.set(e.oid, e);
      const compressed = await compressObject(data);
      stored += compressed.length;
      if (stored > maxStoredBytes) throw new PackError(`the pushed objects take more than ${Math.round(maxStoredBytes / 1048576)} MiB once their deltas are resolved`);
      objects.push({ oid: e.oid, type, size: data.length, compressed, links: objectLinks(type, data) });
    }
    if (next.length === pending.length) throw new PackError("pack has a cycle of deltas");
    pending = next;
  }
  return objects;
}
