// `npm run bench:git`: clone and push of the same repository against Slipway's git
// hosting (the Worker under wrangler dev, packs in local R2) and against git's own
// `git http-backend` on this machine, in one run. Prints figures and ratios only:
// nothing here passes or fails on time.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { startStack, type RunningStack } from "../local/stack.ts";
import { startGitHttpBackend, type Peer } from "./git-http-backend.ts";
import { freePort } from "../local/free-port.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench-git", import.meta.url));
const RUNS = 3;
const COMMITS = 600;

const gitEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", HOME: tmpdir() };
/** Runs git and returns the milliseconds it took. Asynchronous: the stack's log pipes and
 * the peer's CGI bridge live in this process and must keep flowing meanwhile. */
function git(cwd: string, ...args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: gitEnv, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`git ${args.join(" ")}: ${stderr}`))));
  });
}

/** A repository of COMMITS commits over 40 directories, some blobs incompressible. */
function buildRepo(dir: string): { objects: number; bytes: number } {
  execFileSync("git", ["init", "-q", "-b", "main", dir], { env: gitEnv });
  const chunks: Buffer[] = [];
  for (let c = 0; c < COMMITS; c++) {
    const parts: Buffer[] = [];
    for (let f = 0; f < 6; f++) {
      const path = `dir${(c * 7 + f) % 40}/file${(c + f * 13) % 90}.${f === 0 ? "bin" : "txt"}`;
      const body = f === 0 ? randomBytes(6000) : Buffer.from(`commit ${c} file ${f}\n`.repeat(40 + f * 10));
      parts.push(Buffer.from(`M 100644 inline ${path}\ndata ${body.length}\n`), body, Buffer.from("\n"));
    }
    const msg = `commit ${c}\n`;
    chunks.push(Buffer.from(`commit refs/heads/main\ncommitter B <b@example.test> ${1700000000 + c} +0000\ndata ${msg.length}\n${msg}`), ...parts, Buffer.from("\n"));
  }
  execFileSync("git", ["fast-import", "--quiet"], { cwd: dir, input: Buffer.concat(chunks), env: gitEnv });
  execFileSync("git", ["gc", "-q"], { cwd: dir, env: gitEnv });
  const objects = execFileSync("git", ["rev-list", "--objects", "--all"], { cwd: dir, env: gitEnv }).toString().trim().split("\n").length;
  const bytes = Number(/size-pack: (\d+)/.exec(execFileSync("git", ["count-objects", "-v"], { cwd: dir, env: gitEnv }).toString())![1]) * 1024;
  return { objects, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let stack: RunningStack | undefined;
let peer: Peer | undefined;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void Promise.all([peer?.stop(), stack?.stop()]).finally(() => process.exit(130)));
}
const work = await mkdtemp(join(tmpdir(), "slipway-bench-git-"));
try {
  await rm(DATA_DIR, { recursive: true, force: true });
  console.log("starting the local stack …");
  // Free ports of its own, so it runs beside `npm run dev`, tests and other benches.
  stack = await startStack({ dataDir: DATA_DIR, ports: { postgres: await freePort(), proxy: await freePort(), worker: await freePort(), runner: await freePort() }, log: () => {} });
  const peerRoot = join(work, "peer");
  execFileSync("mkdir", ["-p", peerRoot]);
  peer = await startGitHttpBackend(peerRoot);
  const source = join(work, "source");
  const size = buildRepo(source);
  console.log(`repository: ${COMMITS} commits, ${size.objects} objects, ${(size.bytes / 1048576).toFixed(1)} MiB packed`);

  const apiKey = await benchAccount(stack);
  const results: Record<string, { slipway: number[]; peer: number[] }> = {};
  const record = (name: string, side: "slipway" | "peer", ms: number) => ((results[name] ??= { slipway: [], peer: [] })[side].push(ms));

  for (let run = 0; run < RUNS; run++) {
    // A fresh empty repository on each side for every push.
    const project = await call(stack, "POST", "/v1/project/projects", { name: `bench ${run}` }, { "X-API-Key": apiKey });
    const slipwayUrl = new URL(project.git_repo_url);
    slipwayUrl.username = "bench";
    slipwayUrl.password = apiKey;
    const bare = join(peerRoot, `r${run}.git`);
    execFileSync("git", ["init", "-q", "--bare", bare], { env: gitEnv });
    execFileSync("git", ["config", "http.receivepack", "true"], { cwd: bare, env: gitEnv });
    const peerUrl = `${peer.url}/r${run}.git`;

    record("push (whole repository)", "slipway", await git(source, "push", "-q", slipwayUrl.toString(), "main"));
    record("push (whole repository)", "peer", await git(source, "push", "-q", peerUrl, "main"));
    for (const [side, url] of [["slipway", slipwayUrl.toString()], ["peer", peerUrl]] as const) {
      const dir = join(work, `${side}-${run}`);
      record("clone", side, await git(work, "clone", "-q", "--bare", url, `${dir}-full`));
      record("clone --depth 1", side, await git(work, "clone", "-q", "--bare", "--depth", "1", url, `${dir}-shallow`));
      record("clone (protocol v0)", side, await git(work, "-c", "protocol.version=0", "clone", "-q", "--bare", url, `${dir}-v0`));
    }
  }

  console.log(`\nmedian of ${RUNS} runs, milliseconds (lower is better); ratio = Slipway / git http-backend`);
  console.log(`${"operation".padEnd(28)}${"Slipway".padStart(10)}${"http-backend".padStart(14)}${"ratio".padStart(8)}`);
  for (const [name, r] of Object.entries(results)) {
    const s = median(r.slipway);
    const p = median(r.peer);
    console.log(`${name.padEnd(28)}${s.toFixed(0).padStart(10)}${p.toFixed(0).padStart(14)}${(s / p).toFixed(2).padStart(8)}`);
  }
  console.log("\nSlipway runs under wrangler dev (workerd, local R2 and Durable Objects) on the same machine;");
  console.log("git http-backend is spawned per request behind a Node CGI bridge (bench/git-http-backend.ts).");
} finally {
  await peer?.stop();
  await stack?.stop();
  await rm(work, { recursive: true, force: true });
}

async function benchAccount(s: RunningStack): Promise<string> {
  const email = `bench-git-${Date.now()}@slipway.local`;
  const { token } = await call(s, "POST", "/api/auth/signup", { email, password: "bench-password-1234" });
  await call(s, "PATCH", `/admin/accounts/${encodeURIComponent(email)}`, { plan: "enterprise" }, { Authorization: `Bearer ${s.adminToken}` });
  return (await call(s, "GET", "/api/auth/me", undefined, { Authorization: `Bearer ${token}` })).api_key;
}

async function call(s: RunningStack, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.apiRoot}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}
