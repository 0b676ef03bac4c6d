import { notFound } from "../errors.ts";
import { OID_PATTERN } from "./bytes.ts";
import { GITLINK_MODE, parseCommit, parseTag, parseTree, TREE_MODE, type Commit } from "./objects.ts";
import type { RepoStore } from "./repo-store.ts";

/** Reading a repository through the API: resolve a ref, list a tree, read a file, a log. */

/** A branch, a tag, a full ref name or a commit id, to its commit. */
export async function resolveCommit(store: RepoStore, ref: string): Promise<string> {
  const refs = store.snapshot.refs;
  const named = refs.find((r) => r.name === ref) ?? refs.find((r) => r.name === `refs/heads/${ref}`) ?? refs.find((r) => r.name === `refs/tags/${ref}`);
  let oid = named ? (named.peeled ?? named.oid) : OID_PATTERN.test(ref) && store.has(ref) ? ref : null;
  for (let i = 0; oid && i < 10; i++) {
    const o = await store.readObject(oid);
    if (o?.type === "commit") return oid;
    if (o?.type !== "tag") break;
    oid = parseTag(o.data).object;
  }
  if (refs.length === 0) throw notFound("The repository is empty: push a commit first (git push, or POST /{slug}/git/files).");
  throw notFound(`No branch, tag or commit "${ref}" in this repository.`);
}

async function commitAt(store: RepoStore, oid: string): Promise<Commit> {
  const o = await store.readObject(oid);
  if (!o || o.type !== "commit") throw notFound(`Commit ${oid} not found.`);
  return parseCommit(o.data);
}

/** Follows the path from the commit's root tree; the entry found (the root is a tree). */
async function walkPath(store: RepoStore, commit: string, path: string): Promise<{ mode: string; oid: string }> {
  let current = { mode: TREE_MODE, oid: (await commitAt(store, commit)).tree };
  for (const name of path.split("/").filter(Boolean)) {
    if (current.mode !== TREE_MODE) throw notFound(`"${path}" not found: a part of it is a file.`);
    const o = await store.readObject(current.oid);
    const entry = o ? parseTree(o.data).find((e) => e.name === name) : undefined;
    if (!entry) throw notFound(`"${path}" not found at this ref.`);
    current = entry;
  }
  return current;
}

const kind = (mode: string) => (mode === TREE_MODE ? "tree" : mode === GITLINK_MODE ? "submodule" : mode === "120000" ? "symlink" : "file");

export async function listTree(store: RepoStore, ref: string, path: string) {
  const commit = await resolveCommit(store, ref);
  const entry = await walkPath(store, commit, path);
  if (entry.mode !== TREE_MODE) throw notFound(`"${path}" is a file; read it with GET /{slug}/git/file.`);
  const o = await store.readObject(entry.oid);
  const prefix = path.split("/").filter(Boolean).join("/");
  const entries = parseTree(o!.data).map((e) => ({ name: e.name, path: prefix ? `${prefix}/${e.name}` : e.name, type: kind(e.mode), mode: e.mode, oid: e.oid }));
  return { ref, commit, path: prefix, entries };
}

export async function readFile(store: RepoStore, ref: string, path: string, maxBytes: number) {
  const commit = await resolveCommit(store, ref);
  const entry = await walkPath(store, commit, path);
  if (entry.mode === TREE_MODE) throw notFound(`"${path}" is a directory; list it with GET /{slug}/git/tree.`);
  const o = await store.readObject(entry.oid);
  if (!o) throw notFound(`"${path}" not found.`);
  if (o.data.length > maxBytes) throw notFound(`"${path}" is ${o.data.length} bytes, over the ${maxBytes}-byte limit of this endpoint; clone the repository instead.`);
  let bin = "";
  for (let i = 0; i < o.data.length; i += 0x8000) bin += String.fromCharCode(...o.data.subarray(i, i + 0x8000));
  return { ref, commit, path, oid: entry.oid, mode: entry.mode, size: o.data.length, content: btoa(bin) };
}

/** "Name <email> 1700000000 +0000" as parts. */
function person(line: string) {
  const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!m) return { name: line, email: "", date: null as string | null };
  return { name: m[1]!, email: m[2]!, date: new Date(Number(m[3]) * 1000).toISOString() };
}

/** Commits reachable from the ref, newest (by committer time) first. */
export async function log(store: RepoStore, ref: string, limit: number) {
  const start = await resolveCommit(store, ref);
  const seen = new Set<string>([start]);
  const queue: { oid: string; commit: Commit; time: number }[] = [];
  const push = async (oid: string) => {
    const commit = await commitAt(store, oid);
    queue.push({ oid, commit, time: Number(/ (\d+) [+-]\d{4}$/.exec(commit.committer)?.[1] ?? 0) });
  };
  await push(start);
  const commits = [];
  while (queue.length && commits.length < limit) {
    queue.sort((a, b) => b.time - a.time);
    const { oid, commit } = queue.shift()!;
    commits.push({ id: oid, parents: commit.parents, author: person(commit.author), committer: person(commit.committer), message: commit.message });
    for (const p of commit.parents) {
      if (seen.has(p) || !store.has(p)) continue; // a shallow boundary would stop here
      seen.add(p);
      await push(p);
    }
  }
  return { ref, commits };
}

export function refList(store: RepoStore) {
  const s = store.snapshot;
  return {
    head: s.head,
    branches: s.refs.filter((r) => r.name.startsWith("refs/heads/")).map((r) => ({ name: r.name.slice(11), commit: r.oid })),
    tags: s.refs.filter((r) => r.name.startsWith("refs/tags/")).map((r) => ({ name: r.name.slice(10), oid: r.oid, commit: r.peeled ?? r.oid })),
  };
}

