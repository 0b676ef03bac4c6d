// `npm run bench:auth`: end-user auth speed on a fresh local stack of its own (free
// ports, state under .data/bench-auth), each figure next to a peer measured in
// the same run. Prints figures only: nothing here passes or fails on time.
//   - Argon2id (m=19456 KiB, t=2, p=1) hash time inside workerd, against hash-wasm in Node;
//   - end-user POST /{slug}/auth/login req/s, p50, p99, against the dashboard login.
import { rm } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { argon2id } from "hash-wasm";
import { startStack, type RunningStack } from "../local/stack.ts";
import { freePort } from "../local/free-port.ts";
import { runClosedLoop, type LoadResult } from "./load.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench-auth", import.meta.url));
const HASHES = 20;
const WARMUP = 20;
const REQUESTS = 200;
const CONCURRENCIES = [1, 4];

await rm(DATA_DIR, { recursive: true, force: true });
console.log(`starting the local stack (state in ${DATA_DIR}) …`);
let stack: RunningStack | undefined;
try {
  stack = await startStack({ dataDir: DATA_DIR, ports: { postgres: await freePort(), proxy: await freePort(), worker: await freePort(), runner: await freePort() }, log: () => {} });
  const s = stack;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.apiRoot}${path}`, { method, headers: { "Content-Type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };

  // Argon2id inside workerd: the time of N hashes minus the time of none, over N.
  const admin = { Authorization: `Bearer ${s.adminToken}` };
  const timeHashes = async (count: number) => {
    const t = performance.now();
    await call("POST", "/dev/argon2", { count }, admin);
    return performance.now() - t;
  };
  await timeHashes(2);
  const empty = Math.min(await timeHashes(0), await timeHashes(0), await timeHashes(0));
  const workerdMs = (Math.min(await timeHashes(HASHES), await timeHashes(HASHES)) - empty) / HASHES;
  const salt = new Uint8Array(16);
  const t0 = performance.now();
  for (let i = 0; i < HASHES; i++) await argon2id({ password: `bench password ${i}`, salt, parallelism: 1, iterations: 2, memorySize: 19456, hashLength: 32, outputType: "binary" });
  const nodeMs = (performance.now() - t0) / HASHES;

  // Logins: an end user of a project, and a dashboard account, one password each.
  const email = `bench-${Date.now()}@slipway.local`;
  const password = "bench-password-1234";
  const { token } = await call("POST", "/api/auth/signup", { email, password });
  const { api_key: apiKey } = await call("GET", "/api/auth/me", undefined, { Authorization: `Bearer ${token}` });
  const project = await call("POST", "/v1/project/projects", { name: "Auth Bench" }, { "X-API-Key": apiKey });
  const info = await call("GET", `/v1/project/${project.slug}/info`, undefined, { "X-API-Key": apiKey });
  const appHeaders = { "X-Publishable-Key": info.auth.publishable_key };
  await call("POST", `/v1/project/${project.slug}/auth/signup`, { email, password }, appHeaders);
  const login = (path: string, headers: Record<string, string>) => async () => {
    await call("POST", path, { email, password }, headers);
  };
  const rows: { concurrency: number; endUser: LoadResult; dashboard: LoadResult }[] = [];
  for (const concurrency of CONCURRENCIES) {
    const endUserLogin = login(`/v1/project/${project.slug}/auth/login`, appHeaders);
    const dashboardLogin = login("/api/auth/login", {});
    console.log(`measuring logins at concurrency ${concurrency} …`);
    await runClosedLoop(endUserLogin, { requests: WARMUP, concurrency });
    const endUser = await runClosedLoop(endUserLogin, { requests: REQUESTS, concurrency });
    await runClosedLoop(dashboardLogin, { requests: WARMUP, concurrency });
    const dashboard = await runClosedLoop(dashboardLogin, { requests: REQUESTS, concurrency });
    rows.push({ concurrency, endUser, dashboard });
  }

  const cpu = cpus();
  console.log(`\n${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}\n`);
  console.log(`Argon2id m=19456 KiB t=2 p=1, mean of ${HASHES} hashes`);
  console.log(`  inside workerd (the Worker)     ${workerdMs.toFixed(1).padStart(7)} ms`);
  console.log(`  hash-wasm in Node (peer)        ${nodeMs.toFixed(1).padStart(7)} ms   ratio ${(workerdMs / nodeMs).toFixed(2)}×`);
  console.log(`\nlogin, ${REQUESTS} requests per row after ${WARMUP} warm-up, all on 127.0.0.1`);
  const line = (cells: string[]) => console.log(cells[0]!.padEnd(40) + cells.slice(1).map((c) => c.padStart(10)).join(""));
  line(["", "req/s", "p50 ms", "p99 ms"]);
  for (const { concurrency, endUser, dashboard } of rows) {
    console.log(`concurrency ${concurrency}`);
    line(["  end-user POST /{slug}/auth/login", endUser.perSecond.toFixed(1), endUser.p50Ms.toFixed(1), endUser.p99Ms.toFixed(1)]);
    line(["  dashboard POST /api/auth/login (peer)", dashboard.perSecond.toFixed(1), dashboard.p50Ms.toFixed(1), dashboard.p99Ms.toFixed(1)]);
  }
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await stack?.stop();
}
