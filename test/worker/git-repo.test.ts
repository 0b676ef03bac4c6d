import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const repo = (name: string) => env.GIT_REPO.get(env.GIT_REPO.idFromName(name));
const ZERO = "0".repeat(40);
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

describe("GitRepo", () => {
  it("moves a ref only from the value the pusher saw: of 20 racing pushes exactly one wins", async () => {
    const stub = repo("race");
    await stub.applyPush(null, [{ ref: "refs/heads/main", old: ZERO, new: A }], "test");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stub.applyPush(null, [{ ref: "refs/heads/main", old: A, new: (i + 1).toString(16).padStart(40, "0") }], "test")),
    );
    expect(results.filter((r) => r[0]!.ok).length).toBe(1);
    expect(results.find((r) => !r[0]!.ok)![0]!.reason).toMatch(/stale info/);
    const events = await stub.recentEvents();
    expect(events.length).toBe(2); // the creation and the one winning update
  });

  it("judges each ref on its own and records the pack and an event per moved ref in the same transaction", async () => {
    const stub = repo("per-ref");
    const pack = { name: "f".repeat(40), objects: 3, bytes: 100, metaEnd: 50 };
    const results = await stub.applyPush(pack, [
      { ref: "refs/heads/dev", old: ZERO, new: A },
      { ref: "refs/heads/main", old: B, new: C },
      { ref: "refs/tags/v1", old: ZERO, new: B, peeled: A },
    ], "git:someone");
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    const snap = await stub.snapshot();
    expect(snap.refs).toEqual([
      { name: "refs/heads/dev", oid: A, peeled: null },
      { name: "refs/tags/v1", oid: B, peeled: A },
    ]);
    expect(snap.packs).toEqual([pack]);
    // The first branch pushed to an empty repository becomes HEAD when main is absent.
    expect(snap.head).toBe("refs/heads/dev");
    expect((await stub.recentEvents()).map((e) => [e.ref, e.before, e.after, e.source])).toEqual([
      ["refs/heads/dev", ZERO, A, "git:someone"],
      ["refs/tags/v1", ZERO, B, "git:someone"],
    ]);
  });

  it("keeps HEAD on main when main is pushed, refuses to delete it, and deletes other branches", async () => {
    const stub = repo("head");
    await stub.applyPush(null, [{ ref: "refs/heads/feature", old: ZERO, new: A }, { ref: "refs/heads/main", old: ZERO, new: B }], "test");
    expect((await stub.snapshot()).head).toBe("refs/heads/main");
    const [del] = await stub.applyPush(null, [{ ref: "refs/heads/main", old: B, new: ZERO }], "test");
    expect(del!.ok).toBe(false);
    const [ok] = await stub.applyPush(null, [{ ref: "refs/heads/feature", old: A, new: ZERO }], "test");
    expect(ok!.ok).toBe(true);
    expect((await stub.snapshot()).refs.map((r) => r.name)).toEqual(["refs/heads/main"]);
  });
});
