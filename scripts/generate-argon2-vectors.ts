// Writes test/fixtures/argon2-vectors.json from the reference Argon2 implementation's CLI
// (Debian: `apt-get install argon2`), so test/worker/argon2.test.ts can check our
// WebAssembly Argon2 against an independent implementation without the CLI at run time.
//
// Run: ./node_modules/.bin/node scripts/generate-argon2-vectors.ts
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type Case = { type: "id" | "i" | "d"; password: string; salt: string; t: number; m: number; p: number; hashLength: number };

// The CLI takes the salt as an argument, so salts are ASCII; passwords go through stdin as UTF-8.
const cases: Case[] = [
  { type: "id", password: "correct horse battery staple", salt: "saltsaltsaltsalt", t: 2, m: 19456, p: 1, hashLength: 32 },
  { type: "id", password: "password", salt: "somesalt", t: 2, m: 64, p: 1, hashLength: 32 },
  { type: "id", password: "pässwörd ✓ 密码", salt: "0123456789abcdef", t: 3, m: 256, p: 4, hashLength: 32 },
  { type: "id", password: "p>1 with m not a multiple of 4p", salt: "an-odd-salt-len", t: 1, m: 100, p: 3, hashLength: 16 },
  { type: "id", password: "x".repeat(120), salt: "long-password-salt", t: 4, m: 1024, p: 2, hashLength: 64 },
  { type: "id", password: "tag longer than one blake2b block", salt: "H-prime-salt", t: 1, m: 32, p: 1, hashLength: 100 },
  { type: "i", password: "argon2i password", salt: "argon2i-salt", t: 3, m: 512, p: 2, hashLength: 32 },
  { type: "d", password: "argon2d password", salt: "argon2d-salt", t: 2, m: 512, p: 2, hashLength: 32 },
];

const vectors = cases.map((c) => {
  const out = execFileSync("argon2", [c.salt, `-${c.type}`, "-t", `${c.t}`, "-k", `${c.m}`, "-p", `${c.p}`, "-l", `${c.hashLength}`], {
    input: Buffer.from(c.password, "utf8"),
    encoding: "utf8",
  });
  const field = (name: string) => out.match(new RegExp(`^${name}:\\s*(\\S+)$`, "m"))?.[1];
  const hash = field("Hash");
  const encoded = field("Encoded");
  if (!hash || !encoded) throw new Error(`unexpected argon2 output:\n${out}`);
  return { ...c, type: `argon2${c.type}`, hash, encoded };
});

const version = execFileSync("dpkg-query", ["-W", "-f=${Version}", "argon2"], { encoding: "utf8" });
const fixture = { generatedBy: `argon2 CLI (Debian package ${version}), scripts/generate-argon2-vectors.ts`, vectors };
const out = join(dirname(fileURLToPath(import.meta.url)), "..", "test", "fixtures", "argon2-vectors.json");
writeFileSync(out, `${JSON.stringify(fixture, null, 2)}\n`);
console.log(`wrote ${vectors.length} vectors to ${out}`);
