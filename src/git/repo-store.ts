import type { Bindings } from "../env.ts";
import type { PackRecord, RefResult, RefUpdate, RepoSnapshot } from "../../durable-objects/git-repo.ts";
import { serviceUnavailable } from "../errors.ts";
import { OBJECT_TYPES, type ObjectType } from "./hash.ts";
import { PackIndex } from "./pack-index.ts";
import { indexKey, packKey } from "./storage-keys.ts";
import { inflate } from "./zlib.ts";
import { inflateZlib } from "./inflate.ts";
import type { WrittenPack } from "./pack-write.ts";

/** Where an object's entry sits: its pack and the byte range of the entry. */
export type Location = { pack: PackRecord; start: number; end: number };

/** Parsed indexes are immutable, so an isolate keeps them across requests. */
const indexCache = new Map<string, PackIndex>();

/**
 * One repository's objects and refs: the GitRepo Durable Object holds refs and the pack
 * catalog, R2 holds the packs and their indexes. An instance lives for one request and
 * keeps the front (commits, tags, trees) of each pack it reads from.
 */
export class RepoStore {
  private indexes = new Map<string, PackIndex>();
  private metaRegions = new Map<string, Promise<Uint8Array>>();
  snapshot!: RepoSnapshot;

  constructor(
    private env: Bindings,
    readonly projectId: string,
    /** Named in push events. */
    readonly slug: string,
  ) {}

  private get repo() {
    return this.env.GIT_REPO.get(this.env.GIT_REPO.idFromName(this.projectId));
  }

  /** Reads refs, HEAD and the catalog, and loads the index of every pack. */
  async open(): Promise<this> {
    this.snapshot = await this.repo.snapshot();
    await Promise.all(this.snapshot.packs.map((p) => this.loadIndex(p)));
    return this;
  }

  private async loadIndex(pack: PackRecord): Promise<void> {
    const key = indexKey(this.projectId, pack.name);
    let index = indexCache.get(key);
    if (!index) {
      const object = await this.env.BUCKET.get(key);
      if (!object) throw serviceUnavailable("Git storage", new Error(`missing index ${key}`));
      index = new PackIndex(new Uint8Array(await object.arrayBuffer()), pack.bytes);
      if (indexCache.size > 500) indexCache.clear();
      indexCache.set(key, index);
    }
    this.indexes.set(pack.name, index);
  }

  locate(oid: string): Location | null {
    for (const pack of this.snapshot.packs) {
      const index = this.indexes.get(pack.name)!;
      const start = index.find(oid);
      if (start !== undefined) return { pack, start, end: index.endOf(start) };
    }
    return null;
  }

  has(oid: string): boolean {
    return this.locate(oid) !== null;
  }

  /** The bytes of one entry (header and zlib data), from the cached front of the pack or R2. */
  async readEntry(loc: Location): Promise<Uint8Array> {
    if (loc.end <= loc.pack.metaEnd) {
      let region = this.metaRegions.get(loc.pack.name);
      if (!region) {
        region = this.readRange(loc.pack, 0, loc.pack.metaEnd);
        this.metaRegions.set(loc.pack.name, region);
      }
      return (await region).subarray(loc.start, loc.end);
    }
    return this.readRange(loc.pack, loc.start, loc.end);
  }

  async readRange(pack: PackRecord, start: number, end: number): Promise<Uint8Array> {
    const object = await this.env.BUCKET.get(packKey(this.projectId, pack.name), { range: { offset: start, length: end - start } });
    if (!object) throw serviceUnavailable("Git storage", new Error(`missing pack ${pack.name}`));
    return new Uint8Array(await object.arrayBuffer());
  }

  /** A stream of a pack's bytes in [start, end). */
  async streamRange(pack: PackRecord, start: number, end: number): Promise<ReadableStream<Uint8Array>> {
    const object = await this.env.BUCKET.get(packKey(this.projectId, pack.name), { range: { offset: start, length: end - start } });
    if (!object) throw serviceUnavailable("Git storage", new Error(`missing pack ${pack.name}`));
    return object.body;
  }

  /** An object's type and data, or null when the repository does not have it. */
  async readObject(oid: string): Promise<{ type: ObjectType; data: Uint8Array } | null> {
    const loc = this.locate(oid);
    if (!loc) return null;
    const entry = await this.readEntry(loc);
    const { kind, size, at } = entryHeader(entry);
    // Small objects (most trees and commits) inflate faster in place than through a stream.
    const data = size <= SMALL_OBJECT_BYTES ? inflateZlib(entry, at, size).data : await inflate(entry.subarray(at));
    return { type: OBJECT_TYPES[kind - 1]!, data };
  }

  /** Stores a pack and its index in R2; the catalog learns of it in `applyPush`. */
  async putPack(written: WrittenPack): Promise<PackRecord> {
    await this.env.BUCKET.put(packKey(this.projectId, written.name), written.pack);
    await this.env.BUCKET.put(indexKey(this.projectId, written.name), written.index);
    return { name: written.name, objects: written.objectCount, bytes: written.pack.length, metaEnd: written.metaEnd };
  }

  applyPush(pack: PackRecord | null, updates: RefUpdate[], source: string): Promise<RefResult[]> {
    return this.repo.applyPush(pack, updates, source, { projectId: this.projectId, slug: this.slug });
  }
}

const SMALL_OBJECT_BYTES = 16 * 1024;

/** The type number, size and where the data starts in a stored (whole-object) pack entry. */
export function entryHeader(entry: Uint8Array): { kind: number; size: number; at: number } {
  let at = 0;
  let byte = entry[at++]!;
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  for (let shift = 4; byte & 0x80; shift += 7) {
    byte = entry[at++]!;
    size += (byte & 0x7f) * 2 ** shift;
  }
  return { kind, size, at };
}
