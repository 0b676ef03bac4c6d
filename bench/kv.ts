// `node bench/kv.ts`: key-value get / set / incr through the Worker against Redis behind
// webdis (Debian packages redis-server and webdis, started on loopback here), in one run
// on a fresh local stack of its own (state under .data/bench-kv), printed as ratios; and
// what the rate limiter adds to a request (its Server-Timing entry). Prints figures only:
// nothing here passes or fails on time.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStack, type RunningStack } from "../local/stack.ts";
import { freePort } from "../local/free-port.ts";
import { runClosedLoop, type LoadResult } from "./load.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench-kv", import.meta.url));
const WARMUP = 200;
const REQUESTS = 2_000;
const CONCURRENCIES = [1, 8];
const VALUE = { user: "ada", visits: 42, tags: ["a", "b"] };
const REQUEST_TIMEOUT_MS = 30_000;

type Op = "get" | "set" | "incr";
type Target = { label: string; send: (op: Op, i: number) => Promise<void> };

const stackLog: string[] = [];
const log = (part: string, line: string) => {
  stackLog.push(`[${part}] ${line}`);
  if (stackLog.length > 60) stackLog.shift();
};
const children: ChildProcess[] = [];
let stack: RunningStack | undefined;
const stopAll = async () => {
  for (const child of children) child.kill("SIGTERM");
  await stack?.stop();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));

await rm(DATA_DIR, { recursive: true, force: true });
await mkdir(DATA_DIR, { recursive: true });
try {
  console.log(`starting the local stack, redis-server and webdis (state in ${DATA_DIR}) …`);
  stack = await startStack({ dataDir: DATA_DIR, ports: { postgres: await freePort(), proxy: await freePort(), worker: await freePort(), runner: await freePort() }, log });
  const webdisUrl = await startRedisBehindWebdis();
  const { apiKey, slug } = await benchProject(stack);
  const worker = workerTarget(`${stack.apiRoot}/v1/project/${slug}/redis`, apiKey);
  const webdis = webdisTarget(webdisUrl);
  await worker.send("set", 0);
  await webdis.send("set", 0);

  const rows: { op: Op; concurrency: number; worker: LoadResult; webdis: LoadResult }[] = [];
  for (const concurrency of CONCURRENCIES) {
    for (const op of ["set", "get", "incr"] as const) {
      console.log(`measuring ${op} at concurrency ${concurrency} …`);
      rows.push({ op, concurrency, worker: await measure(worker, op, concurrency), webdis: await measure(webdis, op, concurrency) });
    }
  }
  const limiter = await rateLimiterCost(`${stack.apiRoot}/v1/project/${slug}/redis/get`, apiKey);
  printReport(rows, limiter);
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? err.message : String(err)}\nlast stack log lines:\n${stackLog.join("\n")}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}

async function measure(target: Target, op: Op, concurrency: number): Promise<LoadResult> {
  let i = 0;
  const send = () => target.send(op, i++);
  await runClosedLoop(send, { requests: WARMUP, concurrency });
  return runClosedLoop(send, { requests: REQUESTS, concurrency });
}

function workerTarget(base: string, apiKey: string): Target {
  const headers = { "Content-Type": "application/json", "X-API-Key": apiKey };
  const bodies: Record<Op, string> = {
    set: JSON.stringify({ key: "bench:value", value: VALUE }),
    get: JSON.stringify({ key: "bench:value" }),
    incr: JSON.stringify({ key: "bench:counter" }),
  };
  return {
    label: "Worker /redis",
    send: async (op) => {
      const res = await fetch(`${base}/${op}`, { method: "POST", headers, body: bodies[op], signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`Worker ${op}: ${res.status} ${text}`);
    },
  };
}

function webdisTarget(base: string): Target {
  // The same JSON value as the Worker stores, sent as webdis' PUT body for SET.
  const json = JSON.stringify(VALUE);
  return {
    label: "webdis + Redis",
    send: async (op) => {
      const res =
        op === "set" ? await fetch(`${base}/SET/bench:value`, { method: "PUT", body: json, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
        : await fetch(`${base}/${op === "get" ? "GET/bench:value" : "INCR/bench:counter"}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`webdis ${op}: ${res.status} ${text}`);
    },
  };
}

/** Median and p99 of the limiter's own Server-Timing entry over sequential get calls. */
async function rateLimiterCost(url: string, apiKey: string) {
  const limiter: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < 500; i++) {
    const started = performance.now();
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-API-Key": apiKey }, body: JSON.stringify({ key: "bench:value" }) });
    await res.text();
    total.push(performance.now() - started);
    const timing = res.headers.get("server-timing")?.match(/ratelimit;dur=([\d.]+)/);
    if (timing) limiter.push(Number(timing[1]));
  }
  const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * values.length) - 1)] ?? NaN;
  return { samples: limiter.length, p50: pct(limiter, 0.5), p99: pct(limiter, 0.99), totalP50: pct(total, 0.5) };
}

async function startRedisBehindWebdis(): Promise<string> {
  const redisPort = await freePort();
  const webdisPort = await freePort();
  await startChild("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], /Ready to accept connections/);
  const config = join(DATA_DIR, "webdis.json");
  await writeFile(config, JSON.stringify({ redis_host: "127.0.0.1", redis_port: redisPort, http_host: "127.0.0.1", http_port: webdisPort, threads: 4, pool_size: 20, daemonize: false, database: 0, verbosity: 3, logfile: join(DATA_DIR, "webdis.log") }));
  const child = await startChild("webdis", [config], null);
  const url = `http://127.0.0.1:${webdisPort}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`webdis exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/PING`).then((r) => r.ok, () => false);
    if (ok) return url;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("webdis did not answer on its port");
}

function startChild(command: string, args: string[], ready: RegExp | null): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("error", (err) => reject(new Error(`could not start ${command} (apt-get install ${command}): ${err.message}`)));
    if (!ready) return resolve(child);
    let output = "";
    child.stdout!.on("data", (d) => {
      output += d;
      if (ready.test(output)) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
  });
}

/** An Enterprise account (100,000 key-value operations an hour) with one project. */
async function benchProject(stack: RunningStack): Promise<{ apiKey: string; slug: string }> {
  const email = `bench-kv-${Date.now()}@slipway.local`;
  const { token } = await call(stack, "POST", "/api/auth/signup", { email, password: "bench-password-1234" });
  await call(stack, "PATCH", `/admin/accounts/${encodeURIComponent(email)}`, { plan: "enterprise" }, { Authorization: `Bearer ${stack.adminToken}` });
  const { api_key: apiKey } = await call(stack, "GET", "/api/auth/me", undefined, { Authorization: `Bearer ${token}` });
  const project = await call(stack, "POST", "/v1/project/projects", { name: "Bench KV" }, { "X-API-Key": apiKey });
  return { apiKey, slug: project.slug };
}

async function call(stack: RunningStack, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.apiRoot}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

function printReport(rows: { op: Op; concurrency: number; worker: LoadResult; webdis: LoadResult }[], limiter: Awaited<ReturnType<typeof rateLimiterCost>>): void {
  const cpu = cpus();
  console.log(`\nkey-value get / set / incr, ${REQUESTS} requests per row after ${WARMUP} warm-up, all on 127.0.0.1`);
  console.log(`${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}\n`);
  const line = (cells: string[]) => console.log(cells[0]!.padEnd(34) + cells.slice(1).map((c) => c.padStart(10)).join(""));
  const row = (label: string, r: LoadResult) => line([label, r.perSecond.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2)]);
  line(["", "req/s", "p50 ms", "p99 ms"]);
  for (const { op, concurrency, worker, webdis } of rows) {
    console.log(`${op}, concurrency ${concurrency}`);
    row("  Worker POST /redis/" + op, worker);
    row("  webdis + Redis", webdis);
    line(["  ratio Worker / webdis", times(webdis.perSecond / worker.perSecond), times(worker.p50Ms / webdis.p50Ms), times(worker.p99Ms / webdis.p99Ms)]);
  }
  console.log(`\n(ratio: webdis/Worker for req/s, Worker/webdis for latency; both read "the Worker is N× slower")`);
  console.log(`\nrate limiter (RateLimiter Durable Object round trip, from Server-Timing), ${limiter.samples} sequential get calls:`);
  console.log(`  p50 ${limiter.p50.toFixed(2)} ms, p99 ${limiter.p99.toFixed(2)} ms; ${((limiter.p50 / limiter.totalP50) * 100).toFixed(0)}% of the request's p50 of ${limiter.totalP50.toFixed(2)} ms`);
}

function times(n: number): string {
  return `${n.toFixed(1)}×`;
}
