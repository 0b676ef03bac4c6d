import { describe, expect, it } from "vitest";
import fixture from "../fixtures/git-packs.json";
import { inflateZlib } from "../../src/git/inflate.ts";
import { deflate, inflate, zlibStored } from "../../src/git/zlib.ts";
import { objectId, crc32 } from "../../src/git/hash.ts";
import { concat, text, utf8 } from "../../src/git/bytes.ts";
import { parsePack, PackError } from "../../src/git/pack-parse.ts";
import { writePack } from "../../src/git/pack-write.ts";
import { PackIndex } from "../../src/git/pack-index.ts";
import { applyDelta } from "../../src/git/delta.ts";
import { parseCommit, parseTree, serializeTree } from "../../src/git/objects.ts";

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const expected = new Map(fixture.objects.map((o) => [o.oid, o]));

describe("zlib", () => {
  it("inflates a stream followed by other bytes and says where it ended", async () => {
    const data = utf8("hello hello hello hello, git packs lay zlib streams end to end");
    const z = await deflate(data);
    const input = concat([utf8("xx"), z, utf8("NEXT OBJECT")]);
    const out = inflateZlib(input, 2, data.length);
    expect(text(out.data)).toBe(text(data));
    expect(out.consumed).toBe(z.length);
    expect(await inflate(z)).toEqual(data);
  });

  it("writes stored-block zlib streams both inflaters read, across the 65535-byte block limit", async () => {
    for (const size of [0, 1, 65535, 65536, 140000]) {
      const data = new Uint8Array(size).map((_, i) => (i * 7) % 256);
      const z = zlibStored(data);
      expect(await inflate(z)).toEqual(data);
      expect(inflateZlib(z, 0, size)).toEqual({ data, consumed: z.length });
    }
  });

  it("rejects a stream whose size differs from the entry header and a corrupted trailer", async () => {
    const z = await deflate(utf8("abcabcabc"));
    expect(() => inflateZlib(z, 0, 8)).toThrow();
    const bad = z.slice();
    bad[bad.length - 1]! ^= 1;
    expect(() => inflateZlib(bad, 0, 9)).toThrow(/Adler/);
  });

  it("computes CRC-32 and object ids the way git does", async () => {
    expect(crc32(utf8("123456789"))).toBe(0xcbf43926);
    // `printf 'hello\n' | git hash-object --stdin`
    expect(await objectId("blob", utf8("hello\n"))).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    expect(await objectId("tree", new Uint8Array())).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  });
});

describe("pack parsing", () => {
  for (const kind of ["ofs_pack", "ref_pack"] as const) {
    it(`resolves every object of a pack git wrote (${kind === "ofs_pack" ? "OFS_DELTA" : "REF_DELTA"}) to the ids git computed`, async () => {
      const objects = await parsePack(b64(fixture[kind]));
      expect(objects.length).toBe(fixture.objects.length);
      for (const o of objects) {
        expect(expected.get(o.oid), o.oid).toBeDefined();
        expect(o.type).toBe(expected.get(o.oid)!.type);
        expect(o.size).toBe(expected.get(o.oid)!.size);
        expect((await inflate(o.compressed)).length).toBe(o.size);
      }
      // Every commit links its tree and parents; the first commit has only a tree.
      const commits = objects.filter((o) => o.type === "commit");
      expect(commits.filter((c) => c.links.length === 1).length).toBe(1);
      expect(commits.every((c) => c.links.every((l) => expected.has(l)))).toBe(true);
    });
  }

  it("rejects a pack with a wrong checksum, a wrong count, or trailing bytes", async () => {
    const pack = b64(fixture.ofs_pack);
    const flipped = pack.slice();
    flipped[100]! ^= 0xff;
    await expect(parsePack(flipped)).rejects.toThrow(/checksum/);
    const body = pack.slice(0, pack.length - 20);
    new DataView(body.buffer).setUint32(8, fixture.objects.length + 1);
    const recount = concat([body, new Uint8Array(await crypto.subtle.digest("SHA-1", body))]);
    await expect(parsePack(recount)).rejects.toThrow(PackError);
  });

  it("reads a thin pack's missing base through the repository", async () => {
    const full = new Map((await parsePack(b64(fixture.ref_pack))).map((o) => [o.oid, o]));
    await expect(parsePack(b64(fixture.thin_pack))).rejects.toThrow(/neither the pack nor the repository/);
    const lookups: string[] = [];
    const objects = await parsePack(b64(fixture.thin_pack), async (oid) => {
      lookups.push(oid);
      const o = full.get(oid);
      return o ? { type: o.type, data: await inflate(o.compressed) } : null;
    });
    expect(lookups.length).toBeGreaterThan(0);
    for (const o of objects) expect(expected.get(o.oid)?.size).toBe(o.size);
    await expect(parsePack(utf8("PACK"))).rejects.toThrow(/not a pack/);
  });
});

describe("pack writing and the index", () => {
  it("writes a pack of whole objects whose index finds each one, commits and trees first", async () => {
    const objects = await parsePack(b64(fixture.ofs_pack));
    const written = await writePack(objects);
    expect(written.objectCount).toBe(fixture.objects.length);
    const index = new PackIndex(written.index, written.pack.length);
    expect(index.count).toBe(fixture.objects.length);
    for (const o of objects) {
      const offset = index.find(o.oid)!;
      expect(offset).toBeGreaterThanOrEqual(12);
      if (o.type !== "blob") expect(offset).toBeLessThan(written.metaEnd);
      else expect(offset).toBeGreaterThanOrEqual(written.metaEnd);
    }
    expect(index.find("0".repeat(40))).toBeUndefined();
    // The written pack parses again to the same objects.
    const again = await parsePack(written.pack);
    expect(new Set(again.map((o) => o.oid))).toEqual(new Set(objects.map((o) => o.oid)));
  });

  it("reads an index git wrote", async () => {
    const pack = b64(fixture.ofs_pack);
    const index = new PackIndex(b64(fixture.ofs_idx), pack.length);
    expect(index.count).toBe(fixture.objects.length);
    expect(new Set(index.allOids())).toEqual(new Set(expected.keys()));
    for (const oid of expected.keys()) expect(index.endOf(index.find(oid)!)).toBeGreaterThan(index.find(oid)!);
  });
});

describe("objects and deltas", () => {
  it("applies copy and insert instructions, including a 64 KiB copy", () => {
    const base = new Uint8Array(70000).map((_, i) => i % 251);
    // source size 70000, target 65536 + 3: copy offset 0 size 0x10000 (size bytes omitted), insert "abc"
    const varint = (n: number) => {
      const out: number[] = [];
      do {
        let b = n & 0x7f;
        n = Math.floor(n / 128);
        if (n) b |= 0x80;
        out.push(b);
      } while (n);
      return out;
    };
    const delta = Uint8Array.from([...varint(70000), ...varint(65539), 0x80, 3, 97, 98, 99]);
    const out = applyDelta(base, delta);
    expect(out.length).toBe(65539);
    expect(out.subarray(0, 65536)).toEqual(base.subarray(0, 65536));
    expect(text(out.subarray(65536))).toBe("abc");
  });

  it("sorts tree entries as git does (directories compare with a trailing slash)", async () => {
    const blob = "ce013625030ba8dba906f756967f9e9ca394464a";
    const tree = serializeTree([
      { mode: "100644", name: "a.txt", oid: blob },
      { mode: "40000", name: "a", oid: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" },
    ]);
    expect(parseTree(tree).map((e) => e.name)).toEqual(["a.txt", "a"]);
    expect(parseCommit(utf8(`tree ${blob}\nparent ${blob}\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nmsg\n`)).parents).toEqual([blob]);
  });
});
