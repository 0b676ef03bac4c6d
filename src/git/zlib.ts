import { concat } from "./bytes.ts";

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
