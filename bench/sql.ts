// `npm run bench`: POST /{slug}/sql {"query":"select 1"} through the Worker against
// the same query from a direct Postgres client, measured in one run on a fresh local
// stack of its own (ports 5632x and 18788, state under .data/bench). Prints figures
// only: nothing here passes or fails on time.
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { startStack, type RunningStack } from "../local/stack.ts";
import type { ClientReport, LoadJob, PgTarget } from "./load-client.ts";
import { findChild, samplePeakRss, type TreeRss } from "./process-rss.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench", import.meta.url));
const PORTS = { postgres: 56320, proxy: 56321, worker: 18788, runner: 18790 };
const WARMUP = 200;
const REQUESTS = 2_000;
const CONCURRENCIES = [1, 8];
const LOAD_CLIENT = fileURLToPath(new URL("./load-client.ts", import.meta.url));

/** The comparison at one concurrency, and two rows that help explain it. */
type Section = { concurrency: number; worker: ClientReport; direct: ClientReport; health: ClientReport; connectEach: ClientReport };

const stackLog: string[] = [];
const log = (part: string, line: string) => {
  stackLog.push(`[${part}] ${line}`);
  if (stackLog.length > 60) stackLog.shift();
};

const loadBefore = loadavg()[0]!;
await rm(DATA_DIR, { recursive: true, force: true });
console.log(`starting the local stack (state in ${DATA_DIR}) …`);
let stack: RunningStack | undefined;
let client: ReturnType<typeof spawn> | undefined;
const stopAll = async () => {
  client?.kill("SIGKILL");
  await stack?.stop();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));
}

try {
  stack = await startStack({ dataDir: DATA_DIR, ports: PORTS, log });
  const { apiKey, slug, database } = await benchProject(stack);
  const wranglerPid = await findChild(process.pid, "wrangler");
  const workerJob = { target: "worker" as const, url: `${stack.apiRoot}/v1/project/${slug}/sql`, apiKey };

  const sections: Section[] = [];
  let workerPeak: TreeRss | undefined;
  let directClientPeak = 0;
  for (const concurrency of CONCURRENCIES) {
    const common = { warmup: WARMUP, requests: REQUESTS, concurrency };
    console.log(`measuring at concurrency ${concurrency}: Worker …`);
    const sampler = wranglerPid ? samplePeakRss(wranglerPid) : undefined;
    const worker = await runClient({ ...common, ...workerJob });
    console.log(`measuring at concurrency ${concurrency}: Worker /health …`);
    const health = await runClient({ ...common, target: "worker-health", url: `${stack.apiRoot}/health` });
    const peak = await sampler?.stop();
    if (peak && peak.totalBytes > (workerPeak?.totalBytes ?? 0)) workerPeak = peak;
    console.log(`measuring at concurrency ${concurrency}: direct …`);
    const direct = await runClient({ ...common, target: "direct", pg: database });
    directClientPeak = Math.max(directClientPeak, direct.clientPeakRssBytes);
    console.log(`measuring at concurrency ${concurrency}: direct, new connection per query …`);
    const connectEach = await runClient({ ...common, target: "direct-connect", pg: database });
    sections.push({ concurrency, worker, direct, health, connectEach });
  }
  printReport(sections, workerPeak, directClientPeak);
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? err.message : String(err)}\nlast stack log lines:\n${stackLog.join("\n")}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}

/** An enterprise account (no SQL rate limit in the way) with one project. */
async function benchProject(stack: RunningStack): Promise<{ apiKey: string; slug: string; database: PgTarget }> {
  const email = `bench-${Date.now()}@slipway.local`;
  const { token } = await call(stack, "POST", "/api/auth/signup", { email, password: "bench-password-1234" });
  await call(stack, "PATCH", `/admin/accounts/${encodeURIComponent(email)}`, { plan: "enterprise" }, { Authorization: `Bearer ${stack.adminToken}` });
  const { api_key: apiKey } = await call(stack, "GET", "/api/auth/me", undefined, { Authorization: `Bearer ${token}` });
  const project = await call(stack, "POST", "/v1/project/projects", { name: "Bench" }, { "X-API-Key": apiKey });
  const db = project.database;
  return { apiKey, slug: project.slug, database: { host: db.host, port: db.port, user: db.user, password: db.password, database: db.name } };
}

async function call(stack: RunningStack, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.apiRoot}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Runs one measurement in a fresh Node process (see load-client.ts). */
function runClient(job: LoadJob): Promise<ClientReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD_CLIENT], { stdio: ["pipe", "pipe", "inherit"] });
    client = child;
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      client = undefined;
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`the ${job.target} load client exited with ${signal ?? `code ${code}`}`));
    });
    child.stdin!.end(JSON.stringify(job));
  });
}

function printReport(sections: Section[], workerPeak: TreeRss | undefined, directClientPeak: number): void {
  const cpu = cpus();
  console.log(`\nSQL "select 1", ${REQUESTS} requests per row after ${WARMUP} warm-up, all on 127.0.0.1`);
  console.log(`${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}`);
  // Other work on the machine shares its cores with every process measured here.
  console.log(`load average (1 min): ${loadBefore.toFixed(1)} before the run, ${loadavg()[0]!.toFixed(1)} after\n`);
  const line = (cells: string[]) => console.log(cells[0]!.padEnd(40) + cells.slice(1).map((c) => c.padStart(10)).join(""));
  const row = (label: string, r: ClientReport) => line([label, r.perSecond.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2)]);
  line(["", "req/s", "p50 ms", "p99 ms"]);
  for (const { concurrency, worker, direct, health, connectEach } of sections) {
    console.log(`concurrency ${concurrency}`);
    row("  Worker POST /sql", worker);
    row("  direct pg (pooled connections)", direct);
    line(["  ratio Worker / direct", times(direct.perSecond / worker.perSecond), times(worker.p50Ms / direct.p50Ms), times(worker.p99Ms / direct.p99Ms)]);
    row("  reference: Worker GET /health", health);
    row("  reference: pg, new connection each", connectEach);
  }
  console.log(`\n(ratio: direct/Worker for req/s, Worker/direct for latency; both read "the Worker is N× slower")\n`);
  console.log("peak RSS");
  if (workerPeak) {
    const byName = new Map<string, { bytes: number; count: number }>();
    for (const p of workerPeak.processes) {
      const e = byName.get(p.name) ?? { bytes: 0, count: 0 };
      byName.set(p.name, { bytes: e.bytes + p.rssBytes, count: e.count + 1 });
    }
    const parts = [...byName].map(([name, e]) => `${name} ×${e.count} ${mb(e.bytes)}`).join(", ");
    console.log(`  Worker process tree (wrangler dev)      ${mb(workerPeak.totalBytes).padStart(8)}   (${parts})`);
  } else {
    console.log("  Worker process tree (wrangler dev)      n/a (no /proc on this system)");
  }
  console.log(`  direct pg client process (Node + pg)    ${mb(directClientPeak).padStart(8)}`);
}

function times(n: number): string {
  return `${n.toFixed(1)}×`;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}
