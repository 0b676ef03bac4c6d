// Regenerates src/platform/argon2.wasm and src/platform/argon2-blake2b.wasm from the
// installed hash-wasm (MIT, © Dani Biró — see src/platform/argon2-wasm-license.md).
//
// hash-wasm embeds each WebAssembly binary as base64 and compiles it at run time, which
// workerd forbids; Workers may only instantiate modules that are imported. So we lift the
// two binaries Argon2 needs out of the published bundle into .wasm files that wrangler and
// the vitest plugin bundle as compiled modules.
//
// Run: ./node_modules/.bin/node scripts/extract-argon2-wasm.ts
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const pkgDir = dirname(require.resolve("hash-wasm/package.json"));
const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version as string;
const bundle = readFileSync(join(pkgDir, "dist", "index.esm.js"), "utf8");

const targets: Record<string, string> = {
  argon2: "src/platform/argon2.wasm",
  blake2b: "src/platform/argon2-blake2b.wasm",
};

for (const [name, out] of Object.entries(targets)) {
  // The bundle declares each binary as: var name$k = "argon2"; var data$k = "..."; var hash$k = "...";
  const decl = new RegExp(
    `var name\\$(\\w+) = "${name}";\\s*var data\\$\\1 = "([A-Za-z0-9+/=]+)";\\s*var hash\\$\\1 = "([0-9a-f]{8})";`,
  );
  const match = bundle.match(decl);
  if (!match) throw new Error(`hash-wasm ${version}: no embedded "${name}" binary found in dist/index.esm.js`);
  const bytes = Buffer.from(match[2], "base64");
  // hash-wasm records the first 4 bytes of each binary's SHA-1; check we lifted it intact.
  const sha1 = createHash("sha1").update(bytes).digest("hex");
  if (!sha1.startsWith(match[3])) throw new Error(`${name}: SHA-1 ${sha1} does not match hash-wasm's ${match[3]}`);
  if (!WebAssembly.validate(bytes)) throw new Error(`${name}: not a valid WebAssembly module`);
  writeFileSync(join(root, out), bytes);
  console.log(`${out}: ${bytes.length} bytes, sha1 ${sha1} (hash-wasm ${version})`);
}
