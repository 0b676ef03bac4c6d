// `npm run bench:deploy`: push-to-running time of a deployed app, measured on a fresh
// local stack of its own (state under .data/bench-deploy): a file pushed through
// POST /{slug}/git/files with deploy true, then GET /deploy/status polled until running,
// then the app answered through the runner's proxy, next to the interface's usual
// 15–30 s. Prints figures only: nothing here passes or fails on time.
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { startStack, type RunningStack } from "../local/stack.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench-deploy", import.meta.url));
const PORTS = { postgres: 57320, proxy: 57321, worker: 18798, runner: 18799 };
const ROUNDS = 3;

const APPS: Record<string, Record<string, string>> = {
  static: { "index.html": "<h1>bench</h1>" },
  node: { "package.json": JSON.stringify({ name: "bench", main: "server.js" }), "server.js": 'require("node:http").createServer((q, r) => r.end("bench")).listen(Number(process.env.PORT));' },
};

const stackLog: string[] = [];
const loadBefore = loadavg()[0]!;
await rm(DATA_DIR, { recursive: true, force: true });
console.log(`starting the local stack (state in ${DATA_DIR}) …`);
let stack: RunningStack | undefined;
try {
  stack = await startStack({ dataDir: DATA_DIR, ports: PORTS, log: (part, line) => (stackLog.push(`[${part}] ${line}`), stackLog.length > 60 && stackLog.shift()) });
  const apiKey = await benchAccount(stack);
  const rows: [string, number[]][] = [];
  for (const [kind, files] of Object.entries(APPS)) {
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { slug } = await call(stack, "POST", "/v1/project/projects", { name: `bench ${kind}` }, apiKey);
      const entries = Object.entries(files);
      for (const [path, content] of entries.slice(0, -1)) await push(stack, apiKey, slug, path, content, false);
      const [lastPath, lastContent] = entries.at(-1)!;
      console.log(`${kind} app, round ${round + 1}: pushing with deploy true …`);
      const started = performance.now();
      await push(stack, apiKey, slug, lastPath, lastContent, true);
      await untilRunning(stack, apiKey, slug);
      await untilAnswering(PORTS.runner, slug);
      times.push((performance.now() - started) / 1000);
    }
    rows.push([`${kind}: push → running → first answer`, times]);
  }
  const cpu = cpus();
  console.log(`\nPush-to-running, ${ROUNDS} rounds each, fresh project per round, all on 127.0.0.1`);
  console.log(`${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}`);
  console.log(`load average (1 min): ${loadBefore.toFixed(1)} before the run, ${loadavg()[0]!.toFixed(1)} after\n`);
  console.log("".padEnd(44) + ["min s", "median s", "max s"].map((h) => h.padStart(10)).join(""));
  for (const [label, times] of rows) {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(label.padEnd(44) + [sorted[0]!, sorted[Math.floor(sorted.length / 2)]!, sorted.at(-1)!].map((t) => t.toFixed(2).padStart(10)).join(""));
  }
  console.log(`${"the interface's usual figure".padEnd(44)}${"15.00".padStart(10)}${"".padStart(10)}${"30.00".padStart(10)}`);
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? err.message : String(err)}\nlast stack log lines:\n${stackLog.join("\n")}`);
  process.exitCode = 1;
} finally {
  await stack?.stop();
}

async function benchAccount(stack: RunningStack): Promise<string> {
  const email = `bench-${Date.now()}@slipway.local`;
  const { token } = await call(stack, "POST", "/api/auth/signup", { email, password: "bench-password-1234" });
  await fetch(`${stack.apiRoot}/admin/accounts/${encodeURIComponent(email)}`, { method: "PATCH", headers: { Authorization: `Bearer ${stack.adminToken}`, "Content-Type": "application/json" }, body: JSON.stringify({ plan: "enterprise" }) });
  const me = await fetch(`${stack.apiRoot}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json());
  return me.api_key;
}

function push(stack: RunningStack, apiKey: string, slug: string, path: string, content: string, deploy: boolean) {
  return call(stack, "POST", `/v1/project/${slug}/git/files`, { path, content: Buffer.from(content).toString("base64"), message: `add ${path}`, deploy }, apiKey);
}

async function untilRunning(stack: RunningStack, apiKey: string, slug: string): Promise<void> {
  for (;;) {
    const status = await call(stack, "GET", `/v1/project/${slug}/deploy/status`, undefined, apiKey);
    if (status.status === "running") return;
    if (status.status === "failed") throw new Error(`deploy failed: ${status.detail}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function untilAnswering(port: number, slug: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", headers: { Host: `${slug}.localhost:${port}` } }, (res) => {
      res.resume();
      res.statusCode === 200 ? resolve() : reject(new Error(`the app answered ${res.statusCode}`));
    });
    req.on("error", reject);
    req.end();
  });
}

async function call(stack: RunningStack, method: string, path: string, body?: unknown, apiKey?: string) {
  const res = await fetch(`${stack.apiRoot}${path}`, {
    method,
    headers: { ...(apiKey ? { "X-API-Key": apiKey } : {}), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}
