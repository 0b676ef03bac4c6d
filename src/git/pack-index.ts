import { concat, fromHex, toHex } from "./bytes.ts";
import { sha1 } from "./hash.ts";

/**
 * Pack index version 2 (gitformat-pack): magic, version, a 256-entry fan-out table,
 * the sorted object ids, their CRC-32s, their 31-bit offsets (with a table of 64-bit
 * offsets for packs over 2 GiB), then the pack's checksum and the index's own.
 */

export type IndexEntry = { oid: string; offset: number; crc: number };

const MAGIC = [0xff, 0x74, 0x4f, 0x63];

export async function writeIndex(entries: IndexEntry[], packChecksum: Uint8Array): Promise<Uint8Array> {
  const sorted = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const n = sorted.length;
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const head = new Uint8Array(8 + 256 * 4 + n * 20 + n * 4 + n * 4 + large.length * 8);
  const view = new DataView(head.buffer);
  head.set(MAGIC, 0);
  view.setUint32(4, 2);
  const fanout = new Uint32Array(256);
  for (const e of sorted) fanout[parseInt(e.oid.slice(0, 2), 16)]!++;
  let running = 0;
  for (let i = 0; i < 256; i++) {
    running += fanout[i]!;
    view.setUint32(8 + i * 4, running);
  }
  let at = 8 + 1024;
  for (const e of sorted) {
    head.set(fromHex(e.oid), at);
    at += 20;
  }
  for (const e of sorted) {
    view.setUint32(at, e.crc);
    at += 4;
  }
  let largeIndex = 0;
  const largeAt = at + n * 4;
  for (const e of sorted) {
    if (e.offset >= 0x80000000) {
      view.setUint32(at, 0x80000000 | largeIndex);
      view.setBigUint64(largeAt + largeIndex * 8, BigInt(e.offset));
      largeIndex++;
    } else view.setUint32(at, e.offset);
    at += 4;
  }
  const body = concat([head, packChecksum]);
  return concat([body, await sha1(body)]);
}

/** A parsed pack index: find an object's offset, and the extent of each entry. */
export class PackIndex {
  readonly count: number;
  private oids: Uint8Array;
  private offsets: Float64Array;
  /** Entry offsets in pack order, for computing where each entry ends. */
  private sortedOffsets: Float64Array;

  constructor(
    buf: Uint8Array,
    /** The pack's size, to bound its last entry (the 20-byte trailer follows it). */
    readonly packSize: number,
  ) {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (!MAGIC.every((b, i) => buf[i] === b) || view.getUint32(4) !== 2) throw new Error("not a version 2 pack index");
    const n = (this.count = view.getUint32(8 + 255 * 4));
    const oidsAt = 8 + 1024;
    this.oids = buf.subarray(oidsAt, oidsAt + n * 20);
    const offsetsAt = oidsAt + n * 24;
    const largeAt = offsetsAt + n * 4;
    this.offsets = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = view.getUint32(offsetsAt + i * 4);
      this.offsets[i] = v & 0x80000000 ? Number(view.getBigUint64(largeAt + (v & 0x7fffffff) * 8)) : v;
    }
    this.sortedOffsets = Float64Array.from(this.offsets).sort();
  }

  oidAt(i: number): string {
    return toHex(this.oids.subarray(i * 20, i * 20 + 20));
  }

  /** The offset of the object in the pack, or undefined. */
  find(oid: string): number | undefined {
    const key = fromHex(oid);
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      let cmp = 0;
      for (let k = 0; k < 20 && cmp === 0; k++) cmp = this.oids[mid * 20 + k]! - key[k]!;
      if (cmp === 0) return this.offsets[mid];
      if (cmp < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  /** Where the entry starting at `offset` ends: the next entry, or the trailer. */
  endOf(offset: number): number {
    let lo = 0;
    let hi = this.sortedOffsets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sortedOffsets[mid]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.sortedOffsets.length ? this.sortedOffsets[lo]! : this.packSize - 20;
  }

  *allOids(): Generator<string> {
    for (let i = 0; i < this.count; i++) yield this.oidAt(i);
  }
}
