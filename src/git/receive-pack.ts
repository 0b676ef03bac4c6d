import { concat, StreamReader, text, ZERO_OID } from "./bytes.ts";
import { FLUSH, pktLines, readPkt, sideBand, PktError } from "./pkt-line.ts";
import { parsePack, PackError, type PackObject } from "./pack-parse.ts";
import { writePack } from "./pack-write.ts";
import { parseTag } from "./objects.ts";
import { inflate } from "./zlib.ts";
import { refNameProblem } from "./refs.ts";
import { GIT_LIMITS } from "./limits.ts";
import type { RepoStore } from "./repo-store.ts";
import type { RefResult, RefUpdate } from "../../durable-objects/git-repo.ts";

/**
 * git-receive-pack over stateless HTTP (gitprotocol-pack "Pushing data to a server"):
 * read the commands and the pack, check the pack whole (checksum, count, every object
 * a pushed ref needs), store it, move the refs by compare-and-swap, and report per ref.
 */

type Command = { old: string; new: string; ref: string };

const COMMAND = /^([0-9a-f]{40}) ([0-9a-f]{40}) (.+)$/;

export async function receivePack(store: RepoStore, body: ReadableStream<Uint8Array>, source: string, limits = GIT_LIMITS): Promise<Uint8Array> {
  const reader = new StreamReader(body);
  const commands: Command[] = [];
  let caps = new Set<string>();
  for (;;) {
    const p = await readPkt(reader);
    if (!p || p.kind === "flush") break;
    if (p.kind !== "data") throw new PktError("unexpected pkt-line in the command list");
    let line = text(p.data).replace(/\n$/, "");
    const nul = line.indexOf("\0");
    if (nul >= 0) {
      caps = new Set(line.slice(nul + 1).split(" "));
      line = line.slice(0, nul);
    }
    if (line.startsWith("shallow ")) continue;
    const m = COMMAND.exec(line);
    if (!m) throw new PktError(`malformed command "${line.slice(0, 100)}"`);
    commands.push({ old: m[1]!, new: m[2]!, ref: m[3]! });
  }
  // An empty request is git's probe before a large push: nothing to report.
  if (commands.length === 0) return new Uint8Array(0);

  const report = (unpack: string, results: RefResult[], message?: string) => {
    const status = pktLines([`unpack ${unpack}`, ...results.map((r) => (r.ok ? `ok ${r.ref}` : `ng ${r.ref} ${r.reason}`))]);
    if (!caps.has("side-band-64k") && !caps.has("side-band")) return status;
    const max = caps.has("side-band-64k") ? 65515 : 999;
    const parts = message ? sideBand(2, new TextEncoder().encode(`${message}\n`), max) : [];
    return concat([...parts, ...sideBand(1, status, max), FLUSH]);
  };
  const failAll = (unpack: string, reason: string, message?: string) =>
    report(unpack, commands.map((c) => ({ ref: c.ref, ok: false, reason })), message);

  let objects: PackObject[] = [];
  if (commands.some((c) => c.new !== ZERO_OID)) {
    const pack = await reader.rest(limits.maxPushPackBytes);
    if (!pack) {
      const mib = limits.maxPushPackBytes / 1024 / 1024;
      return failAll("pack-too-large", "pack exceeds the push limit", `error: this push is larger than the ${mib} MiB limit per push; push in smaller steps (e.g. a few commits at a time).`);
    }
    try {
      objects = await parsePack(pack, (oid) => store.readObject(oid), limits.maxStoredPushBytes);
    } catch (err) {
      if (err instanceof PackError) return failAll(err.message.replace(/\s+/g, " "), "unpacker error", `error: the pushed pack is invalid: ${err.message}`);
      throw err;
    }
  }
  const pushed = new Map(objects.map((o) => [o.oid, o]));
  const exists = (oid: string) => pushed.has(oid) || store.has(oid);

  // Connectivity: each pushed object's links are in the pack or already stored. Stored
  // packs passed this same check, so every new tip then has its whole history.
  for (const o of objects) {
    const missing = o.links.find((l) => !exists(l));
    if (missing) return failAll(`missing object ${missing} referenced by ${o.oid}`, "missing necessary objects", `error: object ${missing} (referenced by ${o.type} ${o.oid}) is neither in the push nor in the repository`);
  }

  const results = new Map<string, RefResult>();
  const updates: RefUpdate[] = [];
  for (const c of commands) {
    const problem = refNameProblem(c.ref);
    if (problem) {
      results.set(c.ref, { ref: c.ref, ok: false, reason: problem });
      continue;
    }
    if (c.new === ZERO_OID) {
      updates.push({ ref: c.ref, old: c.old, new: c.new });
      continue;
    }
    const target = await typeAndPeeled(store, pushed, c.new);
    if (!target) results.set(c.ref, { ref: c.ref, ok: false, reason: "missing necessary objects" });
    else if (c.ref.startsWith("refs/heads/") && target.type !== "commit") results.set(c.ref, { ref: c.ref, ok: false, reason: "a branch must point at a commit" });
    else updates.push({ ref: c.ref, old: c.old, new: c.new, peeled: target.peeled });
  }

  const written = objects.length ? await writePack(objects) : null;
  const record = written ? await store.putPack(written) : null;
  const applied = updates.length || record ? await store.applyPush(record, updates, source) : [];
  for (const r of applied) results.set(r.ref, r);
  return report("ok", commands.map((c) => results.get(c.ref) ?? { ref: c.ref, ok: false, reason: "not applied" }));
}

/** The type of the object a ref will point at, and for annotated tags the commit they peel to. */
async function typeAndPeeled(store: RepoStore, pushed: Map<string, PackObject>, oid: string): Promise<{ type: string; peeled: string | null } | null> {
  const read = async (id: string) => {
    const p = pushed.get(id);
    if (p) return { type: p.type, data: p.type === "tag" ? await inflate(p.compressed) : null };
    const stored = await store.readObject(id);
    return stored ? { type: stored.type, data: stored.type === "tag" ? stored.data : null } : null;
  };
  const first = await read(oid);
  if (!first) return null;
  let current = first;
  let peeled: string | null = null;
  for (let depth = 0; current.type === "tag" && current.data && depth < 10; depth++) {
    peeled = parseTag(current.data).object;
    const next = await read(peeled);
    if (!next) return null;
    current = next;
  }
  return { type: first.type, peeled };
}
