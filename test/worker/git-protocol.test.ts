import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import fixture from "../fixtures/git-packs.json";
import { concat, text, utf8, ZERO_OID } from "../../src/git/bytes.ts";
import { FLUSH, pkt, readPkt } from "../../src/git/pkt-line.ts";
import { StreamReader } from "../../src/git/bytes.ts";
import { parsePack } from "../../src/git/pack-parse.ts";
import { writePack } from "../../src/git/pack-write.ts";
import { deflate } from "../../src/git/zlib.ts";
import { objectId } from "../../src/git/hash.ts";
import { receivePack } from "../../src/git/receive-pack.ts";
import { readUploadRequest, uploadPack } from "../../src/git/upload-pack.ts";
import { RepoStore } from "../../src/git/repo-store.ts";
import { GIT_LIMITS } from "../../src/git/limits.ts";

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const stream = (bytes: Uint8Array) => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bytes), c.close()) });
const store = (name: string) => new RepoStore(env, name, name).open();

/** Splits a response into its pkt-lines, opening side-band band 1 into its own lines. */
async function lines(body: Uint8Array | ReadableStream<Uint8Array>): Promise<{ text: string[]; band1: Uint8Array; band2: string }> {
  const reader = new StreamReader(body instanceof Uint8Array ? stream(body) : body);
  const out: string[] = [];
  const band1: Uint8Array[] = [];
  let band2 = "";
  for (let p = await readPkt(reader); p; p = await readPkt(reader)) {
    if (p.kind !== "data") continue;
    if (p.data[0] === 1) band1.push(p.data.subarray(1));
    else if (p.data[0] === 2) band2 += text(p.data.subarray(1));
    else out.push(text(p.data).replace(/\n$/, ""));
  }
  return { text: out, band1: concat(band1), band2 };
}

async function tipOf(pack: Uint8Array): Promise<string> {
  const objects = await parsePack(pack);
  const parents = new Set(objects.filter((o) => o.type === "commit").flatMap((o) => o.links.slice(1)));
  return objects.find((o) => o.type === "commit" && !parents.has(o.oid))!.oid;
}

const push = (ref: string, old: string, next: string, pack?: Uint8Array) =>
  concat([pkt(`${old} ${next} ${ref}\0report-status side-band-64k agent=test`), FLUSH, ...(pack ? [pack] : [])]);

describe("receive-pack and upload-pack at the protocol level", () => {
  it("stores a pushed pack, reports per ref in side-band, and serves it back whole to a clone", async () => {
    const pack = b64(fixture.ofs_pack);
    const tip = await tipOf(pack);
    const report = await lines(await receivePack(await store("roundtrip"), stream(push("refs/heads/main", ZERO_OID, tip, pack)), "test"));
    const status = await lines(report.band1);
    expect(status.text).toEqual(["unpack ok", "ok refs/heads/main"]);

    const req = concat([pkt(`want ${tip} side-band-64k ofs-delta\n`), FLUSH, pkt("done\n")]);
    const response = await lines(await uploadPack(await store("roundtrip"), await readUploadRequest(stream(req))));
    expect(response.text).toEqual(["NAK"]);
    const served = await parsePack(response.band1);
    const expected = fixture.objects.filter((o) => o.type !== "tag").map((o) => o.oid).sort();
    expect(served.map((o) => o.oid).sort()).toEqual(expected);
  });

  it("refuses a push over the size limit with a message git prints", async () => {
    const pack = b64(fixture.ofs_pack);
    const tip = await tipOf(pack);
    const s = await store("too-big");
    const report = await lines(await receivePack(s, stream(push("refs/heads/main", ZERO_OID, tip, pack)), "test", { ...GIT_LIMITS, maxPushPackBytes: 1000 }));
    expect(report.band2).toMatch(/larger than the .* MiB limit per push/);
    expect((await lines(report.band1)).text).toEqual(["unpack pack-too-large", "ng refs/heads/main pack exceeds the push limit"]);
    expect((await store("too-big")).snapshot.refs).toEqual([]);
  });

  it("refuses a pack whose commit points at a tree nobody has, and stores nothing", async () => {
    const data = utf8(`tree ${"1".repeat(40)}\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\norphan\n`);
    const oid = await objectId("commit", data);
    const written = await writePack([{ oid, type: "commit", size: data.length, compressed: await deflate(data) }]);
    const report = await lines((await lines(await receivePack(await store("orphan"), stream(push("refs/heads/main", ZERO_OID, oid, written.pack)), "test"))).band1);
    expect(report.text[0]).toMatch(/^unpack missing object 1{40}/);
    expect(report.text[1]).toBe("ng refs/heads/main missing necessary objects");
    const after = await store("orphan");
    expect(after.snapshot.packs).toEqual([]);
  });

  it("rejects per ref: a stale old value, a branch pointing at a blob, a ref outside heads and tags", async () => {
    const pack = b64(fixture.ofs_pack);
    const tip = await tipOf(pack);
    const blob = fixture.objects.find((o) => o.type === "blob")!.oid;
    const body = concat([
      pkt(`${ZERO_OID} ${tip} refs/heads/main\0report-status`),
      pkt(`${"9".repeat(40)} ${tip} refs/heads/stale\n`),
      pkt(`${ZERO_OID} ${blob} refs/heads/blobby\n`),
      pkt(`${ZERO_OID} ${tip} refs/notes/x\n`),
      FLUSH,
      pack,
    ]);
    const report = await lines(await receivePack(await store("per-ref"), stream(body), "test"));
    expect(report.text).toEqual([
      "unpack ok",
      "ok refs/heads/main",
      "ng refs/heads/stale stale info (the ref does not exist any more)",
      "ng refs/heads/blobby a branch must point at a commit",
      "ng refs/notes/x only refs/heads/* and refs/tags/* can be pushed",
    ]);
  });

  it("answers a probe (an empty command list) with nothing", async () => {
    expect((await receivePack(await store("probe"), stream(FLUSH), "test")).length).toBe(0);
  });
});
