import { toHex } from "./bytes.ts";
import { crc32, sha1, type ObjectType } from "./hash.ts";
import { writeIndex, type IndexEntry } from "./pack-index.ts";

/**
 * Writes packs of whole (undeltified) objects. Every stored pack is like this, so any
 * subset of its entries can be copied byte for byte into a pack for a fetch.
 */

export const TYPE_NUMBER: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
/** Commits, tags and trees first, then blobs: history walks read only the front of a pack. */
const ORDER: Record<ObjectType, number> = { commit: 0, tag: 1, tree: 2, blob: 3 };

export function entryHeader(type: ObjectType, size: number): Uint8Array {
  const bytes: number[] = [];
  let byte = (TYPE_NUMBER[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Uint8Array.from(bytes);
}

export function packHeader(count: number): Uint8Array {
  const head = new Uint8Array(12);
  head.set([0x50, 0x41, 0x43, 0x4b]);
  new DataView(head.buffer).setUint32(4, 2);
  new DataView(head.buffer).setUint32(8, count);
  return head;
}

export type WrittenPack = {
  /** The pack's checksum in hex; the pack is stored as pack-<name>. */
  name: string;
  pack: Uint8Array;
  index: Uint8Array;
  objectCount: number;
  /** Offset where the first blob starts: [12, metaEnd) holds every commit, tag and tree. */
  metaEnd: number;
};

export async function writePack(objects: { oid: string; type: ObjectType; size: number; compressed: Uint8Array }[]): Promise<WrittenPack> {
  const unique = new Map<string, (typeof objects)[number]>();
  for (const o of objects) unique.set(o.oid, o);
  const ordered = [...unique.values()].sort((a, b) => ORDER[a.type] - ORDER[b.type]);
  // One buffer of the final size: a push's pack is written without intermediate copies.
  let total = 12 + 20;
  const headers = ordered.map((o) => entryHeader(o.type, o.size));
  ordered.forEach((o, i) => (total += headers[i]!.length + o.compressed.length));
  const pack = new Uint8Array(total);
  pack.set(packHeader(ordered.length));
  const index: IndexEntry[] = [];
  let offset = 12;
  let metaEnd = -1;
  ordered.forEach((o, i) => {
    if (o.type === "blob" && metaEnd < 0) metaEnd = offset;
    const header = headers[i]!;
    index.push({ oid: o.oid, offset, crc: crc32(o.compressed, crc32(header)) });
    pack.set(header, offset);
    pack.set(o.compressed, offset + header.length);
    offset += header.length + o.compressed.length;
  });
  if (metaEnd < 0) metaEnd = offset;
  const checksum = await sha1(pack.subarray(0, offset));
  pack.set(checksum, offset);
  return { name: toHex(checksum), pack, index: await writeIndex(index, checksum), objectCount: ordered.length, metaEnd };
}
