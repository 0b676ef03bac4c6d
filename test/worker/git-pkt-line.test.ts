import { describe, expect, it } from "vitest";
import { pkt, pktLines, readPkt, sideBand, PktError, FLUSH } from "../../src/git/pkt-line.ts";
import { concat, StreamReader, text, utf8 } from "../../src/git/bytes.ts";
import { refNameProblem } from "../../src/git/refs.ts";

/** A stream that delivers `bytes` in pieces of `size`, as a chunked request body would. */
function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(ctl) {
      if (at >= bytes.length) return ctl.close();
      ctl.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

describe("pkt-line", () => {
  it("frames lines with their length in hex, as in the protocol docs' examples", () => {
    expect(text(pkt("a\n"))).toBe("0006a\n");
    expect(text(pkt(""))).toBe("0004");
    expect(text(pktLines(["NAK"]))).toBe("0008NAK\n0000");
    expect(() => pkt(new Uint8Array(65517))).toThrow();
  });

  it("reads pkt-lines across arbitrary chunk boundaries, including flush and delimiter", async () => {
    const body = concat([pkt("want x\n"), FLUSH, utf8("0001"), pkt("done\n")]);
    const first = await readPkt(new StreamReader(chunked(body, 3)));
    expect(first?.kind === "data" && text(first.data)).toBe("want x\n");
    const kinds = [];
    const r2 = new StreamReader(chunked(body, 5));
    for (let p = await readPkt(r2); p; p = await readPkt(r2)) kinds.push(p.kind);
    expect(kinds).toEqual(["data", "flush", "delim", "data"]);
  });

  it("rejects a bad length and a line cut short", async () => {
    await expect(readPkt(new StreamReader(chunked(utf8("zzzz"), 4)))).rejects.toThrow(PktError);
    await expect(readPkt(new StreamReader(chunked(utf8("0010abc"), 4)))).rejects.toThrow(/ended inside/);
  });

  it("splits side-band data into packets of at most 65515 data bytes", () => {
    const packets = sideBand(1, new Uint8Array(65515 * 2 + 1));
    expect(packets.map((p) => p.length)).toEqual([65520, 65520, 6]);
    expect(packets.every((p) => p[4] === 1)).toBe(true);
  });
});

describe("ref names", () => {
  it("accepts branches and tags and refuses what git refuses", () => {
    expect(refNameProblem("refs/heads/main")).toBeNull();
    expect(refNameProblem("refs/tags/v1.0")).toBeNull();
    expect(refNameProblem("refs/heads/feature/x")).toBeNull();
    for (const bad of ["refs/heads/a..b", "refs/heads/a b", "refs/heads/x.lock", "refs/heads/", "refs/heads/.hidden", "refs/heads/a@{1}"]) expect(refNameProblem(bad), bad).toBe("invalid ref name");
    expect(refNameProblem("refs/notes/x")).toMatch(/only refs\/heads/);
    expect(refNameProblem("HEAD")).toMatch(/only refs\/heads/);
  });
});
