import { GIT_LIMITS } from "./limits.ts";
import { concat, OID_PATTERN, StreamReader, text } from "./bytes.ts";
import { DELIM, FLUSH, pkt, pktLines, PktError, readPkt } from "./pkt-line.ts";
import { bytesResponse, packResponse } from "./pack-stream.ts";
import { Walker } from "./walk.ts";
import type { RepoStore } from "./repo-store.ts";
import type { RepoSnapshot } from "../../durable-objects/git-repo.ts";

/**
 * Protocol v2 for fetch (gitprotocol-v2): a capability advertisement, then one command
 * per request — ls-refs (with symrefs, peel, unborn, ref-prefix) or fetch (with
 * shallow and deepen). Pushes stay on v0, as git itself does over HTTP.
 */

/** True when the client asked for v2 in the Git-Protocol header. */
export function wantsV2(gitProtocolHeader: string | undefined): boolean {
  return !!gitProtocolHeader && gitProtocolHeader.split(":").includes("version=2");
}

export function v2Advertisement(): Uint8Array {
  return pktLines(["version 2", "agent=slipway/1", "ls-refs=unborn", "fetch=shallow", "server-option", "object-format=sha1"]);
}

type V2Request = { command: string; args: string[] };

async function readV2Request(body: ReadableStream<Uint8Array>): Promise<V2Request> {
  const reader = new StreamReader(body);
  let command = "";
  const args: string[] = [];
  let inArgs = false;
  for (;;) {
    const p = await readPkt(reader);
    if (!p || p.kind === "flush") break;
    if (reader.consumed > GIT_LIMITS.maxNegotiationBytes) throw new PktError("request too large");
    if (p.kind === "delim") {
      inArgs = true;
      continue;
    }
    if (p.kind !== "data") continue;
    const line = text(p.data).replace(/\n$/, "");
    if (inArgs) args.push(line);
    else if (line.startsWith("command=")) command = line.slice(8);
  }
  return { command, args };
}

export async function serveV2(store: RepoStore, body: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array>> {
  const req = await readV2Request(body);
  if (req.command === "ls-refs") return bytesResponse(lsRefs(store.snapshot, req.args));
  if (req.command === "fetch") return fetchV2(store, req.args);
  throw new PktError(`unknown command "${req.command}"`);
}

function lsRefs(snapshot: RepoSnapshot, args: string[]): Uint8Array {
  const prefixes = args.filter((a) => a.startsWith("ref-prefix ")).map((a) => a.slice(11));
  const wanted = (name: string) => prefixes.length === 0 || prefixes.some((p) => name.startsWith(p));
  const symrefs = args.includes("symrefs");
  const peel = args.includes("peel");
  const lines: string[] = [];
  const head = snapshot.refs.find((r) => r.name === snapshot.head);
  if (wanted("HEAD")) {
    const target = symrefs ? ` symref-target:${snapshot.head}` : "";
    if (head) lines.push(`${head.oid} HEAD${target}`);
    else if (args.includes("unborn")) lines.push(`unborn HEAD${target}`);
  }
  for (const ref of snapshot.refs) {
    if (!wanted(ref.name)) continue;
    lines.push(`${ref.oid} ${ref.name}${peel && ref.peeled ? ` peeled:${ref.peeled}` : ""}`);
  }
  return pktLines(lines);
}

async function fetchV2(store: RepoStore, args: string[]): Promise<ReadableStream<Uint8Array>> {
  const wants: string[] = [];
  const haves: string[] = [];
  const clientShallow = new Set<string>();
  let depth = 0;
  let done = false;
  let relative = false;
  for (const line of args) {
    const [word, arg = ""] = line.split(" ");
    if (word === "want" && OID_PATTERN.test(arg)) wants.push(arg);
    else if (word === "have" && OID_PATTERN.test(arg)) haves.push(arg);
    else if (word === "shallow" && OID_PATTERN.test(arg)) clientShallow.add(arg);
    else if (word === "deepen" && /^\d+$/.test(arg)) depth = Number(arg);
    else if (word === "done") done = true;
    else if (word === "deepen-relative") relative = true;
    else if (word === "deepen-since" || word === "deepen-not" || word === "filter" || word === "want-ref") throw new PktError(`${word} is not supported; use --depth`);
    // thin-pack, no-progress, include-tag, ofs-delta, wait-for-done: nothing to do.
  }
  for (const w of wants) if (!store.has(w)) throw new PktError(`not our ref ${w}`);
  const common = haves.filter((h) => store.has(h));
  if (!done) {
    // No "ready": the client goes on negotiating and says "done" when it has no more to say.
    return bytesResponse(concat([pkt("acknowledgments\n"), ...(common.length ? common.map((c) => pkt(`ACK ${c}\n`)) : [pkt("NAK\n")]), FLUSH]));
  }
  const selection = await new Walker(store).select({ wants, common, depth, relative, clientShallow });
  const head: Uint8Array[] = [];
  if (depth > 0 || clientShallow.size) {
    head.push(pkt("shallow-info\n"), ...selection.shallow.map((s) => pkt(`shallow ${s}\n`)), ...selection.unshallow.map((s) => pkt(`unshallow ${s}\n`)), DELIM);
  }
  head.push(pkt("packfile\n"));
  return packResponse(store, concat(head), selection.objects, 65515);
}
