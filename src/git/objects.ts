import { concat, fromHex, text, toHex, utf8 } from "./bytes.ts";

/** Reading and writing the bodies of commit, tree and tag objects. */

export type TreeEntry = { mode: string; name: string; oid: string };

/** Mode of a submodule (gitlink): its commit lives in another repository. */
export const GITLINK_MODE = "160000";
export const TREE_MODE = "40000";

export function parseTree(data: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = data.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new Error("malformed tree object");
    entries.push({ mode: text(data.subarray(at, space)), name: text(data.subarray(space + 1, nul)), oid: toHex(data.subarray(nul + 1, nul + 21)) });
    at = nul + 21;
  }
  return entries;
}

/** Git sorts tree entries by name, comparing a directory's name as if it ended in "/". */
export function serializeTree(entries: TreeEntry[]): Uint8Array {
  const key = (e: TreeEntry) => (e.mode === TREE_MODE ? `${e.name}/` : e.name);
  const sorted = [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return concat(sorted.flatMap((e) => [utf8(`${e.mode} ${e.name}\0`), fromHex(e.oid)]));
}

export type Commit = { tree: string; parents: string[]; author: string; committer: string; message: string };

/** The header lines of a commit or tag (up to the first blank line) and the message. */
function headers(data: Uint8Array): { fields: [string, string][]; message: string } {
  const body = text(data);
  const split = body.indexOf("\n\n");
  const head = split < 0 ? body : body.slice(0, split);
  const fields: [string, string][] = [];
  for (const line of head.split("\n")) {
    if (line.startsWith(" ")) continue; // continuation of a multi-line header (gpgsig)
    const space = line.indexOf(" ");
    fields.push([line.slice(0, space), line.slice(space + 1)]);
  }
  return { fields, message: split < 0 ? "" : body.slice(split + 2) };
}

export function parseCommit(data: Uint8Array): Commit {
  const { fields, message } = headers(data);
  const get = (name: string) => fields.find(([k]) => k === name)?.[1] ?? "";
  const tree = get("tree");
  if (!/^[0-9a-f]{40}$/.test(tree)) throw new Error("malformed commit object");
  return { tree, parents: fields.filter(([k]) => k === "parent").map(([, v]) => v), author: get("author"), committer: get("committer"), message };
}

export function serializeCommit(c: Commit): Uint8Array {
  const lines = [`tree ${c.tree}`, ...c.parents.map((p) => `parent ${p}`), `author ${c.author}`, `committer ${c.committer}`];
  return utf8(`${lines.join("\n")}\n\n${c.message}`);
}

/** The object an annotated tag points at. */
export function parseTag(data: Uint8Array): { object: string; type: string } {
  const { fields } = headers(data);
  const object = fields.find(([k]) => k === "object")?.[1] ?? "";
  if (!/^[0-9a-f]{40}$/.test(object)) throw new Error("malformed tag object");
  return { object, type: fields.find(([k]) => k === "type")?.[1] ?? "" };
}
