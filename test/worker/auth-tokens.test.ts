import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const tokens = (name: string) => env.AUTH_TOKENS.get(env.AUTH_TOKENS.idFromName(name));
const magic = { kind: "magic_link" as const, userId: "u1", email: "a@example.test", redirectUrl: "http://localhost/x", ttlSeconds: 900 };

describe("AuthTokens (one project's magic-link and reset tokens)", () => {
  it("issues 256-bit tokens and stores only their SHA-256", async () => {
    const stub = tokens("hashing");
    const { token } = await stub.issue(magic);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec<{ hash: string }>("select hash from tokens").toArray());
    expect(stored).toHaveLength(1);
    expect(stored[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.hash).not.toContain(token);
  });

  it("checks without spending, then lets exactly one of 50 concurrent uses spend the token", async () => {
    const stub = tokens("race");
    const { token } = await stub.issue(magic);
    expect((await stub.check("magic_link", token)).ok).toBe(true);
    expect((await stub.check("magic_link", token)).ok).toBe(true);
    const results = await Promise.all(Array.from({ length: 50 }, () => stub.consume("magic_link", token)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "used")).toHaveLength(49);
  });

  it("does not accept a token of one kind as another", async () => {
    const stub = tokens("kinds");
    const { token } = await stub.issue(magic);
    expect(await stub.consume("password_reset", token)).toEqual({ ok: false, reason: "invalid" });
  });

  it("expires a token when its alarm runs at the end of its lifetime", async () => {
    const stub = tokens("alarm");
    const { token } = await stub.issue(magic);
    // Pretend 15 minutes passed: move the stored expiry into the past, then run the alarm.
    await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("update tokens set expires_at = expires_at - 900001"));
    expect(await stub.check("magic_link", token)).toEqual({ ok: false, reason: "expired" });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.consume("magic_link", token)).toEqual({ ok: false, reason: "invalid" });
    expect(await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("select count(*) as n from tokens").one().n)).toBe(0);
  });

  it("withdraws every token of a user", async () => {
    const stub = tokens("revoke");
    const a = await stub.issue(magic);
    const b = await stub.issue({ ...magic, kind: "password_reset" });
    const other = await stub.issue({ ...magic, userId: "u2" });
    expect(await stub.revokeUser("u1")).toBe(2);
    expect((await stub.consume("magic_link", a.token)).ok).toBe(false);
    expect((await stub.consume("password_reset", b.token)).ok).toBe(false);
    expect((await stub.consume("magic_link", other.token)).ok).toBe(true);
  });
});
