import { execFileSync } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { mkdtemp, mkdir, rm } from "node:fs/promises";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { loadRunnerConfig, type RunnerConfig } from "../src/config.ts";
import { startRunner, type RunningRunner } from "../src/runner.ts";
import { signRequest, verifyRequest } from "../src/signing.ts";
import { StatusReport, type DeploymentStatus } from "../src/protocol.ts";

export const SECRET = "test-runner-secret-0123456789abcdef";
const temps: string[] = [];

export async function tempDir(tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `slipway-${tag}-`));
  temps.push(dir);
  return dir;
}

export async function removeTemps(): Promise<void> {
  for (const d of temps.splice(0)) await rm(d, { recursive: true, force: true });
}

/** A git repository made with the git CLI, one commit of `files`, served as file://. */
export async function gitRepo(files: Record<string, string>, branch = "main"): Promise<{ url: string; dir: string; commit(files: Record<string, string>): string }> {
  const dir = await tempDir("repo");
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.test", ...args], { encoding: "utf8" }).trim();
  git("init", "-q", "-b", branch);
  const commit = (more: Record<string, string>) => {
    for (const [path, content] of Object.entries(more)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    git("add", "-A");
    git("commit", "-q", "-m", "change");
    return git("rev-parse", "HEAD");
  };
  commit(files);
  return { url: `file://${dir}`, dir, commit };
}

/** Collects the runner's signed status reports, refusing badly signed ones. */
export class CallbackSink {
  reports: StatusReport[] = [];
  refused = 0;
  server!: Server;
  url = "";
  private waiters: (() => void)[] = [];

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      const headers = { get: (n: string) => [req.headers[n]].flat()[0] ?? null };
      const verdict = await verifyRequest(SECRET, headers, req.method!, req.url!, body);
      if (!verdict.ok) {
        this.refused++;
        res.writeHead(401).end();
        return;
      }
      this.reports.push(StatusReport.parse(JSON.parse(body)));
      res.writeHead(204).end();
      for (const w of this.waiters.splice(0)) w();
    });
    await new Promise<void>((ok) => this.server.listen(0, "127.0.0.1", ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/internal/runner/status`;
  }

  statuses(deploymentId: string): DeploymentStatus[] {
    return this.reports.filter((r) => r.deployment_id === deploymentId).map((r) => r.status);
  }

  last(deploymentId: string): StatusReport | undefined {
    return this.reports.filter((r) => r.deployment_id === deploymentId).at(-1);
  }

  /** Waits for a report of one of `statuses` for the deployment (after `after` reports of it). */
  async waitFor(deploymentId: string, statuses: DeploymentStatus[], opts: { after?: number; timeoutMs?: number } = {}): Promise<StatusReport> {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    while (true) {
      const mine = this.reports.filter((r) => r.deployment_id === deploymentId).slice(opts.after ?? 0);
      const hit = mine.find((r) => statuses.includes(r.status));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no ${statuses.join("/")} for ${deploymentId}; saw ${this.statuses(deploymentId).join(", ")}`);
      await new Promise<void>((ok) => {
        this.waiters.push(ok);
        setTimeout(ok, 500);
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((ok) => this.server.close(() => ok()));
  }
}

export async function startTestRunner(overrides: Partial<Record<keyof RunnerConfig, string>> = {}): Promise<{ runner: RunningRunner; config: RunnerConfig; dataDir: string }> {
  const dataDir = await tempDir("runner");
  await mkdir(dataDir, { recursive: true });
  const config = loadRunnerConfig({ RUNNER_SECRET: SECRET, RUNNER_PORT: "0", RUNNER_DATA_DIR: dataDir, RUNNER_READY_TIMEOUT_SECONDS: "20", ...overrides });
  const lines: string[] = [];
  const runner = await startRunner(config, (l) => lines.push(l));
  return { runner, config, dataDir };
}

/** POSTs a signed job to the runner. */
export async function sendJob(runnerUrl: string, job: object, secret = SECRET, nowMs = Date.now()): Promise<{ status: number; body: any }> {
  const body = JSON.stringify(job);
  const headers = await signRequest(secret, "POST", "/v1/jobs", body, nowMs);
  const res = await fetch(`${runnerUrl}/v1/jobs`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body });
  return { status: res.status, body: await res.json() };
}

export async function readLogs(runnerUrl: string, deploymentId: string): Promise<string> {
  const path = `/v1/deployments/${deploymentId}/logs`;
  const res = await fetch(`${runnerUrl}${path}`, { headers: await signRequest(SECRET, "GET", path, "") });
  return res.text();
}

/** GETs a path from an app through the runner's reverse proxy (Host: <slug>.localhost). */
export function viaProxy(port: number, slug: string, path = "/"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { Host: `${slug}.localhost:${port}` } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

let counter = 0;
export function deployJob(sink: CallbackSink, project: string, repoUrl: string, extra: Record<string, unknown> = {}) {
  const deploymentId = `dep-${++counter}-${randomUUID().slice(0, 8)}`;
  return {
    job_id: randomUUID(),
    action: "deploy",
    project,
    deployment_id: deploymentId,
    callback_url: sink.url,
    repo_url: repoUrl,
    branch: "main",
    env: { DATABASE_URL: "postgresql://app:secret@127.0.0.1:5432/app" },
    limits: { memory_mb: 512, cpus: 0.5 },
    ...extra,
  };
}

export function controlJob(sink: CallbackSink, project: string, deploymentId: string, action: "stop" | "start" | "restart" | "destroy") {
  return { job_id: randomUUID(), action, project, deployment_id: deploymentId, callback_url: sink.url };
}
