import { describe, expect, it } from "vitest";
import { argon2Raw } from "../../src/platform/argon2-core.ts";
import { argon2id, argon2MemoryBytes, hashPassword, verifyPassword } from "../../src/platform/argon2.ts";
import fixture from "../fixtures/argon2-vectors.json";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("password hashing (a user signs up, later signs in)", () => {
  it("hashes to an OWASP-parameter argon2id PHC string with a random 16-byte salt", async () => {
    const phc = await hashPassword("hunter2");
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await hashPassword("hunter2")).not.toBe(phc);
  });

  it("accepts the right password and rejects a wrong one", async () => {
    const phc = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", phc)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", phc)).toBe(false);
    expect(await verifyPassword("", phc)).toBe(false);
  });

  it("answers false, without throwing, for a malformed or out-of-range PHC string", async () => {
    const good = await hashPassword("pw");
    const [, , , params, salt, hash] = good.split("$");
    const bad = [
      "",
      "not a hash",
      good.slice(0, -1) + "!",
      `$argon2id$v=16$${params}$${salt}$${hash}`, // Argon2 1.0 is not supported
      `$argon2id$${params}$${salt}$${hash}`, // no version
      `$argon2x$v=19$${params}$${salt}$${hash}`,
      `$argon2id$v=19$t=2,m=19456,p=1$${salt}$${hash}`, // field order
      `$argon2id$v=19$m=019456,t=2,p=1$${salt}$${hash}`, // leading zero
      `$argon2id$v=19$m=19456,t=0,p=1$${salt}$${hash}`, // no passes
      `$argon2id$v=19$m=7,t=2,p=1$${salt}$${hash}`, // m below 8p
      `$argon2id$v=19$m=9999999,t=2,p=1$${salt}$${hash}`, // m above what a Worker can hold
      `$argon2id$v=19$${params}$c2FsdA$${hash}`, // 4-byte salt
      `$argon2id$v=19$${params}$${salt}$AAAAA`, // impossible base64 length
      `$argon2id$v=19$${params}$${salt}$${hash}=`, // PHC base64 has no padding
      `${good}$`,
    ];
    for (const phc of bad) expect(await verifyPassword("pw", phc), phc).toBe(false);
    expect(await verifyPassword("pw", undefined as unknown as string)).toBe(false);
    expect(await verifyPassword("pw", good)).toBe(true);
  });
});

describe("agreement with the reference implementation", () => {
  // RFC 9106 §5, with secret K and associated data X: t=3, m=32 KiB, p=4, 32-byte tag.
  const rfc = {
    password: new Uint8Array(32).fill(1),
    salt: new Uint8Array(16).fill(2),
    secret: new Uint8Array(8).fill(3),
    associatedData: new Uint8Array(12).fill(4),
    iterations: 3,
    memorySize: 32,
    parallelism: 4,
    hashLength: 32,
  };
  it.each([
    ["argon2id", "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"],
    ["argon2i", "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8"],
    ["argon2d", "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb"],
  ] as const)("matches the RFC 9106 %s test vector", async (type, tag) => {
    expect(hex(await argon2Raw(type, rfc))).toBe(tag);
  });

  it.each(fixture.vectors)(
    "matches the argon2 CLI for $type m=$m t=$t p=$p, $hashLength-byte tag",
    async (v) => {
      const params = { password: utf8(v.password), salt: utf8(v.salt), iterations: v.t, memorySize: v.m, parallelism: v.p, hashLength: v.hashLength };
      const tag = await argon2Raw(v.type as "argon2id" | "argon2i" | "argon2d", params);
      expect(hex(tag)).toBe(v.hash);
      if (v.type === "argon2id") expect(hex(await argon2id(params))).toBe(v.hash);
      expect(await verifyPassword(v.password, v.encoded)).toBe(true);
      expect(await verifyPassword(`${v.password}?`, v.encoded)).toBe(false);
    },
  );
});

describe("memory in a long-lived isolate", () => {
  it("keeps the WebAssembly memory flat across 200 hashes, concurrent ones included", async () => {
    await hashPassword("warm-up");
    const before = await argon2MemoryBytes();
    expect(before).toBeGreaterThan(19456 * 1024);
    for (let batch = 0; batch < 10; batch++) {
      const phcs = await Promise.all(Array.from({ length: 20 }, (_, i) => hashPassword(`password ${batch}-${i}`)));
      expect(await verifyPassword(`password ${batch}-7`, phcs[7])).toBe(true);
    }
    expect(await argon2MemoryBytes()).toBe(before);
  }, 120_000);
});
