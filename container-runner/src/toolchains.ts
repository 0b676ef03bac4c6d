import { execFile } from "node:child_process";
import { realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import { promisify } from "node:util";

const run = promisify(execFile);

/** One language toolchain on this machine: what goes on PATH and what the sandbox must see. */
export type Toolchain = {
  name: "node" | "python" | "go" | "rust";
  version: string;
  /** Directories put first on the app's PATH. */
  binDirs: string[];
  /** Directories bound read-only into the sandbox at the same path. */
  roots: string[];
  env: Record<string, string>;
};
export type Toolchains = Partial<Record<Toolchain["name"], Toolchain>>;

/** Finds node (the runner's own), python3, go and cargo; a missing one is simply absent. */
export async function discoverToolchains(): Promise<Toolchains> {
  const found = await Promise.all([findNode(), findPython(), findGo(), findRust()]);
  return Object.fromEntries(found.filter((t): t is Toolchain => t !== null).map((t) => [t.name, t]));
}

async function probe(cmd: string, args: string[], env: Record<string, string | undefined> = process.env): Promise<string | null> {
  try {
    const { stdout } = await run(cmd, args, { timeout: 15_000, env });
    return stdout.trim();
  } catch {
    return null;
  }
}

async function findNode(): Promise<Toolchain | null> {
  const node = await realpath(process.execPath);
  // npm runs on the runner's Node, whichever npm the machine has (its own #! may name another node).
  const npm = await probe("sh", ["-c", "command -v npm"]);
  const npmCli = npm ? await realpath(npm).catch(() => null) : null;
  const roots = [dirname(dirname(node))];
  if (npmCli) roots.push(dirname(dirname(npmCli)));
  return { name: "node", version: process.version, binDirs: [dirname(node)], roots, env: npmCli ? { SLIPWAY_NPM_CLI: npmCli } : {} };
}

async function findPython(): Promise<Toolchain | null> {
  const prefix = await probe("python3", ["-c", "import sys; print(sys.base_prefix)"]);
  if (!prefix) return null;
  const version = (await probe(join(prefix, "bin", "python3"), ["--version"])) ?? "";
  if (!version) return null;
  return { name: "python", version, binDirs: [join(prefix, "bin")], roots: [prefix], env: {} };
}

async function findGo(): Promise<Toolchain | null> {
  const goroot = await probe("go", ["env", "GOROOT"]);
  if (!goroot) return null;
  const version = (await probe(join(goroot, "bin", "go"), ["version"])) ?? "";
  return { name: "go", version, binDirs: [join(goroot, "bin")], roots: [goroot], env: { GOROOT: goroot, GOTOOLCHAIN: "local" } };
}

async function findRust(): Promise<Toolchain | null> {
  const cargo = await probe("sh", ["-c", "command -v cargo"]);
  if (!cargo) return null;
  const version = await probe(cargo, ["--version"]);
  if (!version) return null;
  const binDir = dirname(cargo);
  const rustupHome = process.env.RUSTUP_HOME ?? join(homedir(), ".rustup");
  return { name: "rust", version, binDirs: [binDir], roots: [binDir, rustupHome], env: { RUSTUP_HOME: rustupHome } };
}
