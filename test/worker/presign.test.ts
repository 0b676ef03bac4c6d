import { describe, expect, it } from "vitest";
import { presign, verifyPresigned, PresignError, type S3Target } from "../../src/storage/presign.ts";
import { pathProblem } from "../../src/storage/object-keys.ts";

const target: S3Target = { endpoint: "http://127.0.0.1:8787/s3", bucket: "slipway", region: "auto", accessKeyId: "AKID", secretAccessKey: "secret" };
const at = new Date("2026-01-02T03:04:05Z");

async function refusal(request: Request, now = at): Promise<string> {
  try {
    await verifyPresigned(target, request, now);
    return "accepted";
  } catch (err) {
    if (err instanceof PresignError) return err.code;
    throw err;
  }
}

describe("the SigV4 presigner and its verifier", () => {
  it("verifies its own PUT URL when the signed Content-Type is sent, and names the key", async () => {
    const signed = await presign(target, { method: "PUT", key: "p/x/objects/a b/c+d.txt", expiresIn: 60, headers: { "content-type": "text/plain" }, now: at });
    expect(signed.url).toContain("/s3/slipway/p/x/objects/a%20b/c%2Bd.txt?");
    expect(new URL(signed.url).searchParams.get("X-Amz-SignedHeaders")).toBe("content-type;host");
    const ok = await verifyPresigned(target, new Request(signed.url, { method: "PUT", headers: { "Content-Type": "text/plain" } }), at);
    expect(ok.key).toBe("p/x/objects/a b/c+d.txt");
  });

  it("refuses another Content-Type, another method, and a missing signed header", async () => {
    const signed = await presign(target, { method: "PUT", key: "k", expiresIn: 60, headers: { "content-type": "image/png" }, now: at });
    expect(await refusal(new Request(signed.url, { method: "PUT", headers: { "Content-Type": "text/html" } }))).toBe("SignatureDoesNotMatch");
    expect(await refusal(new Request(signed.url, { method: "GET", headers: { "Content-Type": "image/png" } }))).toBe("SignatureDoesNotMatch");
    expect(await refusal(new Request(signed.url, { method: "PUT" }))).toBe("AccessDenied");
  });

  it("refuses a URL after its expiry and one dated far in the future", async () => {
    const signed = await presign(target, { method: "GET", key: "k", expiresIn: 60, now: at });
    expect(await refusal(new Request(signed.url), new Date(at.getTime() + 59_000))).toBe("accepted");
    expect(await refusal(new Request(signed.url), new Date(at.getTime() + 61_000))).toBe("AccessDenied");
    expect(await refusal(new Request(signed.url), new Date(at.getTime() - 3600_000))).toBe("AccessDenied");
  });

  it("refuses another access key and a URL signed with another secret", async () => {
    const foreign = await presign({ ...target, secretAccessKey: "other" }, { method: "GET", key: "k", expiresIn: 60, now: at });
    expect(await refusal(new Request(foreign.url))).toBe("SignatureDoesNotMatch");
    const otherKey = await presign({ ...target, accessKeyId: "OTHER" }, { method: "GET", key: "k", expiresIn: 60, now: at });
    expect(await refusal(new Request(otherKey.url))).toBe("InvalidAccessKeyId");
    expect(await refusal(new Request("http://127.0.0.1:8787/s3/slipway/k"))).toBe("AuthorizationQueryParametersError");
  });
});

describe("user paths", () => {
  it("accepts nested names and refuses traversal, absolute, empty segments, control characters, over-long names", () => {
    expect(pathProblem("images/2026/cat photo.png")).toBeNull();
    for (const bad of ["..", "a/../b", "/abs", "a//b", "a/", "./a", "a\\b", "a\u0000b", "x".repeat(901), ""]) expect(pathProblem(bad), bad).not.toBeNull();
  });
});
