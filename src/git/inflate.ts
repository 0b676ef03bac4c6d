/**
 * zlib inflate (RFC 1950 + RFC 1951) that reports how many input bytes the stream used.
 *
 * Objects in a pack are zlib streams laid end to end with no lengths recorded, so the
 * only way to find where one ends and the next object's header starts is to decode it
 * and see where the final block and the Adler-32 trailer end. DecompressionStream cannot
 * say that (it rejects trailing bytes), hence this decoder. Stored packs, whose entry
 * boundaries are known from their index, are inflated with DecompressionStream instead.
 */

export class InflateError extends Error {}

const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

/** A canonical Huffman code as a lookup table indexed by the next `bits` input bits (LSB first). */
type Table = { bits: number; entries: Int32Array };

function buildTable(lengths: ArrayLike<number>): Table {
  let max = 0;
  for (let i = 0; i < lengths.length; i++) if (lengths[i]! > max) max = lengths[i]!;
  if (max === 0) return { bits: 1, entries: new Int32Array(2).fill(-1) };
  const count = new Uint16Array(16);
  for (let i = 0; i < lengths.length; i++) count[lengths[i]!]!++;
  count[0] = 0;
  const next = new Uint16Array(16);
  let code = 0;
  for (let len = 1; len <= 15; len++) {
    code = (code + count[len - 1]!) << 1;
    next[len] = code;
  }
  const entries = new Int32Array(1 << max).fill(-1);
  for (let sym = 0; sym < lengths.length; sym++) {
    const len = lengths[sym]!;
    if (!len) continue;
    const c = next[len]!++;
    let reversed = 0;
    for (let i = 0; i < len; i++) reversed |= ((c >> i) & 1) << (len - 1 - i);
    for (let fill = reversed; fill < entries.length; fill += 1 << len) entries[fill] = (sym << 4) | len;
  }
  return { bits: max, entries };
}

let fixed: { lit: Table; dist: Table } | undefined;
function fixedTables() {
  if (!fixed) {
    const lit = new Uint8Array(288);
    lit.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
    fixed = { lit: buildTable(lit), dist: buildTable(new Uint8Array(30).fill(5)) };
  }
  return fixed;
}

/**
 * Inflates the zlib stream starting at `start`. `expectedSize` (from the pack entry
 * header) sizes the output and is enforced. Returns the data and the bytes consumed,
 * including the zlib header and the Adler-32 trailer.
 */
export function inflateZlib(input: Uint8Array, start: number, expectedSize: number): { data: Uint8Array; consumed: number } {
  let pos = start;
  const end = input.length;
  if (pos + 2 > end) throw new InflateError("truncated zlib header");
  const cmf = input[pos]!;
  const flg = input[pos + 1]!;
  if ((cmf & 0x0f) !== 8 || ((cmf << 8) | flg) % 31 !== 0 || flg & 0x20) throw new InflateError("not a zlib stream");
  pos += 2;

  let bitbuf = 0;
  let bitcnt = 0;
  let overrun = 0;
  const need = (n: number) => {
    while (bitcnt < n) {
      if (pos < end) bitbuf |= input[pos++]! << bitcnt;
      else overrun++;
      bitcnt += 8;
    }
  };
  const bits = (n: number): number => {
    need(n);
    const v = bitbuf & ((1 << n) - 1);
    bitbuf >>>= n;
    bitcnt -= n;
    return v;
  };
  const decode = (t: Table): number => {
    need(t.bits);
    const e = t.entries[bitbuf & ((1 << t.bits) - 1)]!;
    if (e < 0) throw new InflateError("invalid Huffman code");
    const len = e & 15;
    bitbuf >>>= len;
    bitcnt -= len;
    return e >> 4;
  };

  const out = new Uint8Array(expectedSize);
  let o = 0;
  let final = 0;
  do {
    final = bits(1);
    const type = bits(2);
    if (type === 0) {
      bitbuf = 0;
      // Give back whole bytes still in the bit buffer, then read LEN/NLEN aligned.
      pos -= bitcnt >> 3;
      bitcnt = 0;
      if (pos + 4 > end) throw new InflateError("truncated stored block");
      const len = input[pos]! | (input[pos + 1]! << 8);
      const nlen = input[pos + 2]! | (input[pos + 3]! << 8);
      if ((len ^ 0xffff) !== nlen) throw new InflateError("stored block length check failed");
      pos += 4;
      if (pos + len > end) throw new InflateError("truncated stored block");
      if (o + len > expectedSize) throw new InflateError("object larger than its header says");
      out.set(input.subarray(pos, pos + len), o);
      o += len;
      pos += len;
      continue;
    }
    let lit: Table;
    let dist: Table;
    if (type === 1) ({ lit, dist } = fixedTables());
    else if (type === 2) {
      const hlit = bits(5) + 257;
      const hdist = bits(5) + 1;
      const hclen = bits(4) + 4;
      const clLengths = new Uint8Array(19);
      for (let i = 0; i < hclen; i++) clLengths[ORDER[i]!] = bits(3);
      const cl = buildTable(clLengths);
      const lengths = new Uint8Array(hlit + hdist);
      for (let i = 0; i < hlit + hdist; ) {
        const sym = decode(cl);
        if (sym < 16) lengths[i++] = sym;
        else {
          let repeat: number;
          let value = 0;
          if (sym === 16) {
            if (i === 0) throw new InflateError("repeat with no previous length");
            value = lengths[i - 1]!;
            repeat = 3 + bits(2);
          } else if (sym === 17) repeat = 3 + bits(3);
          else repeat = 11 + bits(7);
          if (i + repeat > hlit + hdist) throw new InflateError("code lengths overflow");
          lengths.fill(value, i, i + repeat);
          i += repeat;
        }
      }
      lit = buildTable(lengths.subarray(0, hlit));
      dist = buildTable(lengths.subarray(hlit));
    } else throw new InflateError("invalid block type");

    for (;;) {
      const sym = decode(lit);
      if (sym < 256) {
        if (o >= expectedSize) throw new InflateError("object larger than its header says");
        out[o++] = sym;
      } else if (sym === 256) break;
      else {
        const li = sym - 257;
        if (li >= 29) throw new InflateError("invalid length code");
        const length = LEN_BASE[li]! + bits(LEN_EXTRA[li]!);
        const di = decode(dist);
        if (di >= 30) throw new InflateError("invalid distance code");
        const distance = DIST_BASE[di]! + bits(DIST_EXTRA[di]!);
        if (distance > o) throw new InflateError("distance before start of output");
        if (o + length > expectedSize) throw new InflateError("object larger than its header says");
        for (let k = 0; k < length; k++, o++) out[o] = out[o - distance]!;
      }
    }
  } while (!final);

  // Whole bytes left in the bit buffer were never used: give them back, minus padding.
  const unusedBytes = (bitcnt >> 3) - overrun;
  if (unusedBytes < 0) throw new InflateError("truncated zlib stream");
  pos -= unusedBytes;
  if (pos + 4 > end) throw new InflateError("truncated zlib trailer");
  if (o !== expectedSize) throw new InflateError(`object is ${o} bytes, its header says ${expectedSize}`);
  const stored = ((input[pos]! << 24) | (input[pos + 1]! << 16) | (input[pos + 2]! << 8) | input[pos + 3]!) >>> 0;
  if (stored !== adler32(out)) throw new InflateError("Adler-32 check failed");
  return { data: out, consumed: pos + 4 - start };
}

export function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; ) {
    const stop = Math.min(i + 5552, data.length);
    for (; i < stop; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
