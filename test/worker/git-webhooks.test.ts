import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifySignature } from "../../src/git/webhook-signature.ts";

describe("webhook signatures (GitHub's X-Hub-Signature-256 scheme)", () => {
  it("matches GitHub's published test vector", async () => {
    // docs.github.com "Validating webhook deliveries": secret and payload with their expected signature.
    const header = await signatureHeader("It's a Secret to Everybody", "Hello, World!");
    expect(header).toBe("sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
    expect(await verifySignature("It's a Secret to Everybody", "Hello, World!", header)).toBe(true);
    expect(await verifySignature("It's a Secret to Everybody", "Hello, World?", header)).toBe(false);
    expect(await verifySignature("another secret", "Hello, World!", header)).toBe(false);
    expect(await verifySignature("It's a Secret to Everybody", "Hello, World!", undefined)).toBe(false);
  });
});

describe("GitRepo outbox", () => {
  const ZERO = "0".repeat(40);
  it("fans each ref change out to the webhooks registered at that moment, in the push's transaction", async () => {
    const stub = env.GIT_REPO.get(env.GIT_REPO.idFromName("outbox"));
    const platform = await stub.ensurePlatformWebhook();
    expect(await stub.ensurePlatformWebhook()).toBe(platform);
    expect(Number.isInteger(platform)).toBe(true);
    const user = await stub.addWebhook("https://example.test/hook", "s3cret-s3cret-s3cret");
    await stub.applyPush(null, [{ ref: "refs/heads/main", old: ZERO, new: "a".repeat(40) }, { ref: "refs/heads/x", old: "b".repeat(40), new: "c".repeat(40) }], "test");
    const rows = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec<{ webhook_id: number }>(`select webhook_id from deliveries order by webhook_id`).toArray().map((r) => r.webhook_id),
    );
    // One moved ref (the stale one did not move) times two webhooks.
    expect(rows).toEqual([platform, user.id]);
    expect(await stub.removeWebhook(platform)).toBe(false);
    expect(await stub.removeWebhook(user.id)).toBe(true);
    const left = await runInDurableObject(stub, (_i, state) => state.storage.sql.exec<{ n: number }>(`select count(*) as n from deliveries`).one().n);
    expect(left).toBe(1);
  });
});
