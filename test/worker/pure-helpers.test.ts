import { describe, expect, it } from "vitest";
import { slugFromName, slugProblem, withSuffix } from "../../src/projects/slug.ts";
import { isAllowedOrigin } from "../../src/middleware/cors.ts";
import { seal, unseal, timingSafeEqual } from "../../src/platform/crypto.ts";

describe("slugs", () => {
  it.each(["abc", "my-app", "a1-b2-c3", "x".repeat(32)])("accepts %s", (slug) => expect(slugProblem(slug)).toBeNull());
  it.each(["ab", "x".repeat(33), "My-App", "my--app", "-app", "app-", "my_app", "my app", "admin"])("refuses %s", (slug) =>
    expect(slugProblem(slug)).not.toBeNull(),
  );
  it("derives a valid slug from any name", () => {
    for (const name of ["My Cool App!", "Ünïcödé Shop", "!!", "a", "x".repeat(100), "admin", "Über--Über"]) {
      expect(slugProblem(slugFromName(name))).toBeNull();
      expect(slugProblem(withSuffix(slugFromName(name)))).toBeNull();
    }
    expect(slugFromName("My Cool App!")).toBe("my-cool-app");
  });
});

describe("CORS origins", () => {
  it.each(["http://localhost", "http://localhost:3000", "http://127.0.0.1:5173", "http://shop.localhost:8787", "https://shop.slipway.site", "https://slipway.site"])(
    "allows %s",
    (origin) => expect(isAllowedOrigin(origin, "slipway.site")).toBe(true),
  );
  it.each(["http://shop.slipway.site", "https://evil.com", "https://slipway.site.evil.com", "https://evilslipway.site", "null", "file://x"])(
    "refuses %s",
    (origin) => expect(isAllowedOrigin(origin, "slipway.site")).toBe(false),
  );
});

describe("sealing secrets at rest", () => {
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  it("round-trips and never repeats a ciphertext", async () => {
    const a = await seal("slw_secret", key);
    const b = await seal("slw_secret", key);
    expect(a).not.toBe(b);
    expect(a).not.toContain("slw_secret");
    expect(await unseal(a, key)).toBe("slw_secret");
  });
  it("refuses a tampered ciphertext", async () => {
    const sealed = await seal("slw_secret", key);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith("A") ? "BB" : "AA");
    await expect(unseal(tampered, key)).rejects.toThrow();
  });
  it("compares strings fully", () => {
    expect(timingSafeEqual("abc", "abc")).toBe(true);
    expect(timingSafeEqual("abc", "abd")).toBe(false);
    expect(timingSafeEqual("abc", "abcd")).toBe(false);
  });
});
