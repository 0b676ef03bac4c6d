import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { RunnerJob } from "./protocol.ts";
import { verifyRequest, ReplayGuard } from "./signing.ts";
import { proxyHttp, proxyUpgrade, slugFromHost } from "./proxy.ts";
import type { Deployer } from "./deployer.ts";
import type { DeploymentLogs } from "./logs.ts";
import type { RunnerConfig } from "./config.ts";

const MAX_JOB_BYTES = 256 * 1024;
const ACCEPTED_JOBS_KEPT = 10_000;

// The runner's HTTP surface, one port:
//   Host <slug>.<apps domain>            → the project's running app (reverse proxy)
//   GET  /health                         → backend and isolation in use (unsigned)
//   POST /v1/jobs                        → accept a signed job: 202 (run later), 400, 401
//   GET  /v1/deployments/{id}/logs[?follow=1] → signed; build and runtime logs, text/plain

export function createRunnerServer(deps: { config: RunnerConfig; deployer: Deployer; logs: DeploymentLogs; health: () => object }): Server {
  const replay = new ReplayGuard();
  const accepted = new Set<string>();

  const reply = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(JSON.stringify(body));
  };

  async function authenticated(req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean> {
    const headers = { get: (n: string) => [req.headers[n.toLowerCase()]].flat()[0] ?? null };
    const verdict = await verifyRequest(deps.config.RUNNER_SECRET, headers, req.method ?? "GET", req.url ?? "/", body);
    if (verdict.ok && replay.firstUse(verdict.signature)) return true;
    reply(res, 401, { detail: verdict.ok ? "This signed request was already used." : `Unsigned or badly signed request: ${verdict.reason}.` });
    return false;
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://runner");
    if (req.method === "GET" && url.pathname === "/health") return reply(res, 200, deps.health());
    if (req.method === "POST" && url.pathname === "/v1/jobs") {
      const body = await readBody(req, MAX_JOB_BYTES);
      if (body === null) return reply(res, 413, { detail: `Job bodies are limited to ${MAX_JOB_BYTES} bytes.` });
      if (!(await authenticated(req, res, body))) return;
      let parsed;
      try {
        parsed = RunnerJob.safeParse(JSON.parse(body));
      } catch {
        return reply(res, 400, { detail: "The job is not JSON." });
      }
      if (!parsed.success) return reply(res, 400, { detail: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
      const job = parsed.data;
      if (accepted.has(job.job_id)) return reply(res, 202, { accepted: true, job_id: job.job_id, duplicate: true });
      if (accepted.size >= ACCEPTED_JOBS_KEPT) accepted.delete(accepted.values().next().value!);
      accepted.add(job.job_id);
      deps.deployer.accept(job);
      return reply(res, 202, { accepted: true, job_id: job.job_id });
    }
    const logsPath = url.pathname.match(/^\/v1\/deployments\/([A-Za-z0-9_-]{1,64})\/logs$/);
    if (req.method === "GET" && logsPath) {
      if (!(await authenticated(req, res, ""))) return;
      const id = logsPath[1];
      if (!(await deps.logs.exists(id))) return reply(res, 404, { detail: "No logs for this deployment on this runner." });
      const follow = url.searchParams.get("follow") === "1" || url.searchParams.get("follow") === "true";
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
      const unsubscribe = await deps.logs.read(id, (chunk) => (chunk === "" ? res.end() : res.write(chunk)), follow);
      res.on("close", unsubscribe);
      return;
    }
    reply(res, 404, { detail: "No such runner endpoint." });
  }

  const server = createServer((req, res) => {
    const slug = slugFromHost(req.headers.host, deps.config.RUNNER_APPS_DOMAIN);
    if (slug) {
      const target = deps.deployer.route(slug);
      if (target) return proxyHttp(req, res, target);
      res.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "5" }).end(`No app is running for "${slug}". Deploy it, or start it if it is stopped.\n`);
      return;
    }
    handleApi(req, res).catch((err) => {
      console.error(`[runner] ${req.method} ${req.url}: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) reply(res, 500, { detail: "The runner failed on this request." });
      else res.end();
    });
  });
  server.on("upgrade", (req, socket, head) => {
    const slug = slugFromHost(req.headers.host, deps.config.RUNNER_APPS_DOMAIN);
    const target = slug ? deps.deployer.route(slug) : null;
    if (target) proxyUpgrade(req, socket, head, target);
    else socket.end("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
  });
  return server;
}

function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on("end", () => resolve(size > limit ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
