import type { Bindings } from "../env.ts";
import { ApiError, badRequest, conflict } from "../errors.ts";
import { ZERO_OID } from "./bytes.ts";
import { objectId, type ObjectType } from "./hash.ts";
import { parseCommit, parseTree, serializeCommit, serializeTree, TREE_MODE, type TreeEntry } from "./objects.ts";
import { writePack } from "./pack-write.ts";
import { refNameProblem } from "./refs.ts";
import { RepoStore } from "./repo-store.ts";
import { compressObject } from "./zlib.ts";

/**
 * Commits one file on top of a branch without a git client: a new blob, new trees only
 * along the file's path, and a commit whose parent is the branch tip. The branch moves by
 * compare-and-swap like any push; when a push got there first, the commit is rebuilt on
 * the new tip, so neither side loses a commit.
 */

export type CommitFileInput = { path: string; content: Uint8Array; message: string; branch: string; author: { name: string; email: string } };
export type CommitFileResult = { commit: string; branch: string; previous_commit: string | null; path: string; blob: string };

const MAX_ATTEMPTS = 12;

/** The path's segments, or a 400 saying what is wrong with it. */
export function filePathSegments(path: string): string[] {
  const segments = path.split("/");
  if (!path || path.length > 4096) throw badRequest("path must be 1 to 4096 characters, like src/index.js", "invalid_path");
  for (const s of segments) {
    if (!s || s === "." || s === ".." || s.toLowerCase() === ".git" || s.includes("\0"))
      throw badRequest(`path "${path}" is not a valid file path: use relative names separated by "/", without "..", "." or ".git"`, "invalid_path");
  }
  return segments;
}

export function branchRef(branch: string): string {
  const ref = `refs/heads/${branch}`;
  if (refNameProblem(ref)) throw badRequest(`"${branch}" is not a valid branch name.`, "invalid_branch");
  return ref;
}

type NewObject = { oid: string; type: ObjectType; data: Uint8Array };

export async function commitFile(env: Bindings, project: { id: string; slug: string }, input: CommitFileInput, source: string): Promise<CommitFileResult> {
  const segments = filePathSegments(input.path);
  const ref = branchRef(input.branch);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const store = await new RepoStore(env, project.id, project.slug).open();
    const tip = store.snapshot.refs.find((r) => r.name === ref)?.oid ?? null;
    const created: NewObject[] = [];
    const make = async (type: ObjectType, data: Uint8Array) => {
      const oid = await objectId(type, data);
      created.push({ oid, type, data });
      return oid;
    };
    const readTree = async (oid: string): Promise<TreeEntry[]> => {
      const o = await store.readObject(oid);
      if (!o || o.type !== "tree") throw new ApiError(503, "The repository is missing a tree; contact support.", { code: "git_corrupt" });
      return parseTree(o.data);
    };
    const blob = await make("blob", input.content);

    // Rewrite the trees from the file up to the root; every other tree is reused as is.
    const rewrite = async (treeOid: string | null, depth: number): Promise<string> => {
      const entries = treeOid ? await readTree(treeOid) : [];
      const name = segments[depth]!;
      const existing = entries.find((e) => e.name === name);
      const rest = entries.filter((e) => e.name !== name);
      const prefix = segments.slice(0, depth + 1).join("/");
      if (depth === segments.length - 1) {
        if (existing?.mode === TREE_MODE) throw conflict(`"${prefix}" is a directory in ${input.branch}; choose another path.`);
        rest.push({ mode: existing?.mode === "100755" ? "100755" : "100644", name, oid: blob });
      } else {
        if (existing && existing.mode !== TREE_MODE) throw conflict(`"${prefix}" is a file in ${input.branch}, so it cannot contain "${segments[depth + 1]}".`);
        rest.push({ mode: TREE_MODE, name, oid: await rewrite(existing?.oid ?? null, depth + 1) });
      }
      return make("tree", serializeTree(rest));
    };
    let rootTree: string | null = null;
    if (tip) {
      const c = await store.readObject(tip);
      if (!c || c.type !== "commit") throw new ApiError(503, "The branch tip is missing; contact support.", { code: "git_corrupt" });
      rootTree = parseCommit(c.data).tree;
    }
    const tree = await rewrite(rootTree, 0);
    const when = `${Math.floor(Date.now() / 1000)} +0000`;
    const identity = `${input.author.name.replace(/[<>\n]/g, "")} <${input.author.email.replace(/[<>\n]/g, "")}> ${when}`;
    const message = input.message.endsWith("\n") ? input.message : `${input.message}\n`;
    const commit = await make("commit", serializeCommit({ tree, parents: tip ? [tip] : [], author: identity, committer: identity, message }));

    const objects = await Promise.all(created.map(async (o) => ({ oid: o.oid, type: o.type, size: o.data.length, compressed: await compressObject(o.data) })));
    const record = await store.putPack(await writePack(objects));
    const [result] = await store.applyPush(record, [{ ref, old: tip ?? ZERO_OID, new: commit }], source);
    if (result?.ok) return { commit, branch: input.branch, previous_commit: tip, path: input.path, blob };
    // Another push won the race: back off a little (with jitter) and rebuild on the new tip.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 25 * (attempt + 1)));
  }
  throw conflict(`The branch ${input.branch} kept moving while committing; retry.`);
}
