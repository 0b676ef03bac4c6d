import type { Bindings } from "../env.ts";
import { OBJECT_TYPES } from "./hash.ts";
import { PackIndex } from "./pack-index.ts";
import { writePack } from "./pack-write.ts";
import { entryHeader, RepoStore } from "./repo-store.ts";
import { indexKey, packKey } from "./storage-keys.ts";

/**
 * Merges a repository's small packs into one. Every push adds a pack and every lookup
 * consults each pack's index, so without this a repository fed by many small pushes
 * (API commits especially) would get slower with each one. Entries are whole objects, so
 * merging is copying; the catalog swaps old for new by compare-and-swap, and the old
 * packs stay in R2 until the repository's alarm removes them, after readers that listed
 * them are done.
 */

/** Compact once this many small packs exist. */
export const COMPACT_AT_PACKS = 16;
/** Only packs under this size are merged (they are read whole into memory). */
const SMALL_PACK_BYTES = 4 * 1024 * 1024;

export async function compactSmallPacks(env: Bindings, project: { id: string; slug: string }): Promise<boolean> {
  const repo = env.GIT_REPO.get(env.GIT_REPO.idFromName(project.id));
  const small = (await repo.snapshot()).packs.filter((p) => p.bytes < SMALL_PACK_BYTES);
  if (small.length < COMPACT_AT_PACKS) return false;
  const store = new RepoStore(env, project.id, project.slug);
  const objects = new Map<string, { oid: string; type: (typeof OBJECT_TYPES)[number]; size: number; compressed: Uint8Array }>();
  for (const pack of small) {
    const [packObject, indexObject] = await Promise.all([env.BUCKET.get(packKey(project.id, pack.name)), env.BUCKET.get(indexKey(project.id, pack.name))]);
    if (!packObject || !indexObject) return false;
    const bytes = new Uint8Array(await packObject.arrayBuffer());
    const index = new PackIndex(new Uint8Array(await indexObject.arrayBuffer()), bytes.length);
    for (let i = 0; i < index.count; i++) {
      const oid = index.oidAt(i);
      if (objects.has(oid)) continue;
      const start = index.find(oid)!;
      const entry = bytes.subarray(start, index.endOf(start));
      const { kind, size, at } = entryHeader(entry);
      objects.set(oid, { oid, type: OBJECT_TYPES[kind - 1]!, size, compressed: entry.subarray(at) });
    }
  }
  const merged = await store.putPack(await writePack([...objects.values()]));
  const replaced = await repo.replacePacks(small.map((p) => p.name), merged);
  if (!replaced) await Promise.all([env.BUCKET.delete(packKey(project.id, merged.name)), env.BUCKET.delete(indexKey(project.id, merged.name))]);
  return replaced;
}

/** For waitUntil after a push: a failed compaction only means it is tried after the next push. */
export async function compactInBackground(env: Bindings, project: { id: string; slug: string }): Promise<void> {
  try {
    await compactSmallPacks(env, project);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", where: "git compaction", project: project.id, error: String(err) }));
  }
}
