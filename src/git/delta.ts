/**
 * Applies a git delta (gitformat-pack "Deltified representation"): two size varints,
 * then copy-from-base and insert-literal instructions.
 */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      if (at >= delta.length) throw new Error("truncated delta");
      byte = delta[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  if (varint() !== base.length) throw new Error("delta base size mismatch");
  const out = new Uint8Array(varint());
  let o = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) offset += delta[at++]! * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (1 << (4 + i))) size += delta[at++]! * 2 ** (8 * i);
      if (size === 0) size = 0x10000;
      if (offset + size > base.length || o + size > out.length) throw new Error("delta copy out of range");
      out.set(base.subarray(offset, offset + size), o);
      o += size;
    } else if (op) {
      if (at + op > delta.length || o + op > out.length) throw new Error("delta insert out of range");
      out.set(delta.subarray(at, at + op), o);
      at += op;
      o += op;
    } else throw new Error("reserved delta instruction 0");
  }
  if (o !== out.length) throw new Error("delta result size mismatch");
  return out;
}
