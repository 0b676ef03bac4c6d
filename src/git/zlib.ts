import { concat } from "./bytes.ts";
import { adler32 } from "./inflate.ts";

/** zlib (RFC 1950) through the runtime's native CompressionStream/DecompressionStream. */

async function pipeThrough(data: Uint8Array, transform: TransformStream<BufferSource, Uint8Array>): Promise<Uint8Array> {
  const writer = transform.writable.getWriter();
  const written = writer.write(data).then(() => writer.close());
  const parts: Uint8Array[] = [];
  const reader = transform.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  await written;
  return parts.length === 1 ? parts[0]! : concat(parts);
}

export function deflate(data: Uint8Array): Promise<Uint8Array> {
  return pipeThrough(data, new CompressionStream("deflate"));
}

/** Inflates one complete zlib stream whose extent is known (e.g. from a pack index). */
export function inflate(data: Uint8Array): Promise<Uint8Array> {
  return pipeThrough(data, new DecompressionStream("deflate"));
}

/**
 * A zlib stream of stored (uncompressed) blocks. For small objects this costs a few bytes
 * more than deflating and far less time than setting up a CompressionStream for each.
 */
export function zlibStored(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = new Uint8Array(2 + data.length + blocks * 5 + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let o = 2;
  for (let b = 0; b < blocks; b++) {
    const piece = data.subarray(b * 65535, (b + 1) * 65535);
    out[o++] = b === blocks - 1 ? 1 : 0;
    out[o++] = piece.length & 0xff;
    out[o++] = piece.length >> 8;
    out[o++] = ~piece.length & 0xff;
    out[o++] = (~piece.length >> 8) & 0xff;
    out.set(piece, o);
    o += piece.length;
  }
  const a = adler32(data);
  out[o++] = a >>> 24;
  out[o++] = (a >>> 16) & 0xff;
  out[o++] = (a >>> 8) & 0xff;
  out[o++] = a & 0xff;
  return out;
}

/** Deflates larger objects natively; small ones go in stored blocks (see zlibStored). */
export function compressObject(data: Uint8Array): Promise<Uint8Array> | Uint8Array {
  return data.length <= 2048 ? zlibStored(data) : deflate(data);
}
