import { Sha1Stream } from "./hash.ts";
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
