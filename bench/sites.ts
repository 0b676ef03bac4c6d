// `npm run bench:sites`: a 10 KB and a 1 MB site file served by the Worker at the
// project's site address ({site_url}, by Host header) against nginx serving the same
// files from disk, both on this machine's loopback in the same run. A fresh local stack
// of its own (ports 5633x and 18789, state under .data/bench-sites); nginx (Debian's
// nginx-light) is started by the bench on a free loopback port and stopped at the end.
// Prints figures only: nothing here passes or fails on time.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startStack, type RunningStack } from "../local/stack.ts";
import { freePort } from "../local/free-port.ts";
import { runClosedLoop, type LoadResult } from "./load.ts";

const DATA_DIR = fileURLToPath(new URL("../.data/bench-sites", import.meta.url));
const PORTS = { postgres: 56330, proxy: 56331, worker: 18789, runner: 18791 };
const FILES = [
  { name: "small.html", bytes: 10 * 1024, requests: 2_000, warmup: 200 },
  { name: "large.bin", bytes: 1024 * 1024, requests: 400, warmup: 40 },
];
const CONCURRENCIES = [1, 8];
const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";

type Target = { label: string; port: number; host: string };

const stackLog: string[] = [];
let stack: RunningStack | undefined;
let nginx: ChildProcess | undefined;
const stopAll = async () => {
  nginx?.kill("SIGTERM");
  await stack?.stop();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stopAll().finally(() => process.exit(130)));

await rm(DATA_DIR, { recursive: true, force: true });
try {
  console.log(`starting the local stack (state in ${DATA_DIR}) …`);
  stack = await startStack({ dataDir: DATA_DIR, ports: PORTS, log: (part, line) => {
    if (/error|✘|exception/i.test(line)) stackLog.push(`[${part}] ${line}`);
    if (stackLog.length > 60) stackLog.shift();
  } });
  const siteUrl = await uploadSite(stack);
  const webroot = join(DATA_DIR, "nginx", "www");
  await mkdir(webroot, { recursive: true });
  for (const f of FILES) await writeFile(join(webroot, f.name), content(f.bytes));
  const nginxPort = await startNginx(join(DATA_DIR, "nginx"), webroot);

  const worker: Target = { label: "Worker (site by Host)", port: PORTS.worker, host: new URL(siteUrl).host };
  const peer: Target = { label: "nginx (sendfile)", port: nginxPort, host: `127.0.0.1:${nginxPort}` };
  const rows: { file: string; concurrency: number; worker: LoadResult; nginx: LoadResult }[] = [];
  const baseline: { concurrency: number; result: LoadResult }[] = [];
  for (const concurrency of CONCURRENCIES) {
    console.log(`measuring the Worker's own floor (GET /health, no R2) at concurrency ${concurrency} …`);
    baseline.push({ concurrency, result: await measure({ ...worker, host: `127.0.0.1:${PORTS.worker}` }, "/health", -1, FILES[0]!, concurrency) });
  }
  for (const f of FILES) {
    for (const concurrency of CONCURRENCIES) {
      console.log(`measuring ${f.name} (${f.bytes} bytes) at concurrency ${concurrency} …`);
      const w = await measure(worker, `/${f.name}`, f.bytes, f, concurrency);
      const n = await measure(peer, `/${f.name}`, f.bytes, f, concurrency);
      rows.push({ file: `${f.name} (${f.bytes >= 1024 * 1024 ? `${f.bytes / 1024 / 1024} MB` : `${f.bytes / 1024} KB`})`, concurrency, worker: w, nginx: n });
    }
  }
  printReport(rows, baseline);
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? err.message : String(err)}\nlast stack log lines:\n${stackLog.join("\n")}`);
  process.exitCode = 1;
} finally {
  await stopAll();
  await rm(DATA_DIR, { recursive: true, force: true });
}

/** Deterministic-size, incompressible content. */
function content(bytes: number): Buffer {
  return randomBytes(bytes);
}

/** An account, a project, and the bench files uploaded as site files; returns {site_url}. */
async function uploadSite(stack: RunningStack): Promise<string> {
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${stack.apiRoot}${path}`, { method, headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const signup = await call("POST", "/api/auth/signup", { email: `bench-${Date.now()}@slipway.local`, password: "bench password 123" });
  const me = await (await fetch(`${stack.apiRoot}/api/auth/me`, { headers: { Authorization: `Bearer ${signup.token}` } })).json() as any;
  const key = { "X-API-Key": me.api_key };
  const project = await call("POST", "/v1/project/projects", { name: "Bench site" }, key);
  for (const f of FILES) {
    await call("POST", `/v1/project/${project.slug}/files`, { filename: f.name, content_type: f.name.endsWith(".html") ? "text/html" : "application/octet-stream", content: content(f.bytes).toString("base64") }, key);
  }
  return project.site_url;
}

async function startNginx(prefix: string, webroot: string): Promise<number> {
  const port = await freePort();
  const conf = join(prefix, "nginx.conf");
  await mkdir(join(prefix, "logs"), { recursive: true });
  await writeFile(conf, `worker_processes 1;
pid ${join(prefix, "nginx.pid")};
error_log ${join(prefix, "logs", "error.log")} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  client_body_temp_path ${join(prefix, "tmp")};
  proxy_temp_path ${join(prefix, "tmp")};
  fastcgi_temp_path ${join(prefix, "tmp")};
  uwsgi_temp_path ${join(prefix, "tmp")};
  scgi_temp_path ${join(prefix, "tmp")};
  types { text/html html; application/octet-stream bin; }
  server {
    listen 127.0.0.1:${port};
    root ${webroot};
    etag on;
  }
}
`);
  await mkdir(join(prefix, "tmp"), { recursive: true });
  nginx = spawn(NGINX, ["-p", prefix, "-c", conf, "-g", "daemon off;"], { stdio: ["ignore", "inherit", "inherit"] });
  nginx.once("error", (err) => console.error(`could not start nginx (${NGINX}): ${err.message}. Install it with: apt-get install nginx-light`));
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/${FILES[0]!.name}`);
      await res.arrayBuffer();
      if (res.ok) return port;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not answer on 127.0.0.1:${port}; is it installed? apt-get install nginx-light`);
}

/** Closed-loop GETs over keep-alive connections; a wrong status or length fails the run. */
async function measure(target: Target, path: string, bytes: number, f: { requests: number; warmup: number }, concurrency: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port: target.port, path, agent, headers: { Host: target.host } }, (res) => {
        let got = 0;
        let start = "";
        res.on("data", (chunk: Buffer) => {
          if (got < 500) start += chunk.toString("latin1", 0, 500);
          got += chunk.length;
        });
        res.on("end", () => (res.statusCode === 200 && (bytes < 0 || got === bytes) ? resolve() : reject(new Error(`${target.label} ${path}: ${res.statusCode}, ${got} bytes: ${start.slice(0, 500)}`))));
      });
      req.on("error", reject);
      req.end();
    });
  await runClosedLoop(send, { requests: f.warmup, concurrency });
  const result = await runClosedLoop(send, { requests: f.requests, concurrency });
  agent.destroy();
  return result;
}

function printReport(rows: { file: string; concurrency: number; worker: LoadResult; nginx: LoadResult }[], baseline: { concurrency: number; result: LoadResult }[]): void {
  const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(9);
  console.log("\nStatic file serving: Worker (wrangler dev, workerd + local R2) vs nginx, same machine, same run");
  console.log("file               conc | Worker req/s   p50 ms   p99 ms | nginx req/s   p50 ms   p99 ms | nginx/Worker req/s");
  for (const r of rows) {
    console.log(
      `${r.file.padEnd(18)} ${String(r.concurrency).padStart(4)} |${fmt(r.worker.perSecond, 0)}${fmt(r.worker.p50Ms, 2)}${fmt(r.worker.p99Ms, 2)} |${fmt(r.nginx.perSecond, 0)}${fmt(r.nginx.p50Ms, 2)}${fmt(r.nginx.p99Ms, 2)} | ${(r.nginx.perSecond / r.worker.perSecond).toFixed(1)}x`,
    );
  }
  for (const b of baseline) {
    console.log(`${"(GET /health)".padEnd(18)} ${String(b.concurrency).padStart(4)} |${fmt(b.result.perSecond, 0)}${fmt(b.result.p50Ms, 2)}${fmt(b.result.p99Ms, 2)} |   the Worker's floor under wrangler dev: no R2, no database`);
  }
  console.log("\nThe Worker path includes Host routing, a cached slug lookup, _headers/_redirects rules, and an R2 read (local R2 is SQLite + files under miniflare); nginx serves from the page cache with sendfile. Production R2 and the edge are not measured here.");
}
