import { concat } from "./bytes.ts";
import { Sha1Stream } from "./hash.ts";
import { FLUSH, sideBand } from "./pkt-line.ts";
import { packHeader } from "./pack-write.ts";
import type { Location, RepoStore } from "./repo-store.ts";

/**
 * Streams a pack of the given objects out of the stored packs. Stored entries are whole
 * objects, so each is copied byte for byte; neighbouring entries are read from R2 as one
 * range, and nothing but the range being copied is held in memory.
 */
export async function streamPack(store: RepoStore, oids: string[], write: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const byPack = new Map<string, Location[]>();
  for (const oid of oids) {
    const loc = store.locate(oid);
    if (!loc) throw new Error(`object ${oid} is missing`);
    const list = byPack.get(loc.pack.name) ?? [];
    list.push(loc);
    byPack.set(loc.pack.name, list);
  }
  const hash = new Sha1Stream();
  const emit = async (chunk: Uint8Array) => {
    await hash.update(chunk);
    await write(chunk);
  };
  await emit(packHeader(oids.length));
  for (const locations of byPack.values()) {
    locations.sort((a, b) => a.start - b.start);
    // Runs of adjacent entries become one read.
    let i = 0;
    while (i < locations.length) {
      const first = locations[i]!;
      let end = first.end;
      let j = i + 1;
      while (j < locations.length && locations[j]!.start === end) end = locations[j++]!.end;
      const run = { pack: first.pack, start: first.start, end };
      if (end <= first.pack.metaEnd) await emit(await store.readEntry(run));
      else {
        const reader = (await store.streamRange(first.pack, first.start, end)).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          await emit(value);
        }
      }
      i = j;
    }
  }
  await write(await hash.digest());
}

/**
 * A response body: `head` (negotiation lines), then the pack of `oids`, in side-band
 * packets of `band` data bytes when band > 0 (then closed by a flush). A failure after
 * the head is reported on band 3, which git shows, before the stream is aborted.
 */
export function packResponse(store: RepoStore, head: Uint8Array, oids: string[], band: number): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const send = (data: Uint8Array) => writer.write(band ? concat(sideBand(1, data, band)) : data);
  const produce = async () => {
    try {
      await writer.write(head);
      await streamPack(store, oids, send);
      if (band) await writer.write(FLUSH);
      await writer.close();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", where: "upload-pack", error: String(err) }));
      if (band) await writer.write(concat([...sideBand(3, new TextEncoder().encode(`upload-pack: ${String((err as Error).message)}\n`)), FLUSH])).catch(() => {});
      await writer.abort(err).catch(() => {});
    }
  };
  void produce();
  return readable;
}

/** A response body of bytes already at hand. */
export function bytesResponse(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(ctl) {
      ctl.enqueue(bytes);
      ctl.close();
    },
  });
}
