import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Toolchain, Toolchains } from "./toolchains.ts";

export type Stack = "static" | "node" | "python" | "go" | "rust";

/** What to run for one app, relative to its directory (the sandbox's /app). */
export type StackPlan = {
  stack: Stack;
  toolchain: Toolchain | null;
  steps: { label: string; argv: string[] }[];
  start: string[];
};

export class DetectError extends Error {}

const TOOLCHAIN_OF: Record<Stack, Toolchain["name"]> = { static: "node", node: "node", python: "python", go: "go", rust: "rust" };
const TOOL_NAMES: Record<Toolchain["name"], string> = { node: "Node.js", python: "Python 3", go: "Go (the `go` command)", rust: "Rust (cargo)" };

/** Stack detection by the interface's table: package.json, requirements.txt, go.mod, Cargo.toml, else index.html. */
export async function detectStack(dir: string): Promise<Stack> {
  const files = new Set(await readdir(dir));
  if (files.has("package.json")) return "node";
  if (files.has("requirements.txt")) return "python";
  if (files.has("go.mod")) return "go";
  if (files.has("Cargo.toml")) return "rust";
  if (files.has("index.html")) return "static";
  throw new DetectError("No app found at the repository root: add index.html (static site), package.json, requirements.txt, go.mod or Cargo.toml.");
}

/** The install/build steps and the start command for a detected stack. */
export async function planStack(dir: string, stack: Stack, toolchains: Toolchains, staticServer: string): Promise<StackPlan> {
  const toolchain = toolchains[TOOLCHAIN_OF[stack]] ?? null;
  if (!toolchain) throw new DetectError(`This is a ${stack} app, but ${TOOL_NAMES[TOOLCHAIN_OF[stack]]} is not installed on this runner, so it cannot be built here.`);
  const bin = (name: string) => join(toolchain.binDirs[0], name);
  switch (stack) {
    case "static":
      return { stack, toolchain, steps: [], start: [bin("node"), staticServer, "."] };
    case "node":
      return { stack, toolchain, ...(await nodePlan(dir, bin("node"), toolchain.env.SLIPWAY_NPM_CLI)) };
    case "python": {
      const entry = await firstExisting(dir, ["app.py", "main.py", "server.py", "wsgi.py"]);
      if (!entry) throw new DetectError("A Python app needs app.py, main.py, server.py or wsgi.py at the repository root; it is started with `python <file>` and must listen on $PORT.");
      const requirements = await readFile(join(dir, "requirements.txt"), "utf8");
      const needsPip = requirements.split("\n").some((l) => l.trim() && !l.trim().startsWith("#"));
      // Without requirements the venv needs no pip (ensurepip alone takes seconds on half a CPU).
      const steps = [{ label: "python -m venv .venv", argv: [bin("python3"), "-m", "venv", ...(needsPip ? [] : ["--without-pip"]), ".venv"] }];
      if (needsPip) steps.push({ label: "pip install -r requirements.txt", argv: [".venv/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "-r", "requirements.txt"] });
      return { stack, toolchain, steps, start: [".venv/bin/python", entry] };
    }
    case "go":
      return { stack, toolchain, steps: [{ label: "go build", argv: [bin("go"), "build", "-o", ".slipway-app", "."] }], start: ["./.slipway-app"] };
    case "rust": {
      const manifest = await readFile(join(dir, "Cargo.toml"), "utf8");
      const name = manifest.match(/\[package\][^[]*?\bname\s*=\s*"([^"]+)"/)?.[1];
      if (!name) throw new DetectError("Cargo.toml has no [package] name, so the binary to start is unknown.");
      return { stack, toolchain, steps: [{ label: "cargo build --release", argv: [bin("cargo"), "build", "--release"] }], start: [`./target/release/${name}`] };
    }
  }
}

async function nodePlan(dir: string, node: string, npmCli: string | undefined): Promise<Pick<StackPlan, "steps" | "start">> {
  let pkg: { scripts?: Record<string, string>; main?: string; dependencies?: object; devDependencies?: object };
  try {
    pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  } catch {
    throw new DetectError("package.json is not valid JSON.");
  }
  const npm = (...args: string[]) => (npmCli ? [node, npmCli, ...args] : ["npm", ...args]);
  const steps = [{ label: "npm install", argv: npm("install", "--no-audit", "--no-fund", "--no-update-notifier") }];
  if (pkg.scripts?.build) steps.push({ label: "npm run build", argv: npm("run", "build") });
  if (pkg.scripts?.start) return { steps, start: npm("start") };
  const entry = pkg.main ?? (await firstExisting(dir, ["server.js", "index.js", "app.js", "main.js"]));
  if (!entry) throw new DetectError('package.json needs a "start" script or a "main" file (or server.js/index.js at the root); the app must listen on $PORT.');
  return { steps, start: [node, entry] };
}

async function firstExisting(dir: string, names: string[]): Promise<string | undefined> {
  const files = new Set(await readdir(dir));
  return names.find((n) => files.has(n));
}
