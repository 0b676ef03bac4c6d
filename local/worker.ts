import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { freePort } from "./free-port.ts";

export type RunningWorker = { url: string; stop(): Promise<void> };

const require = createRequire(import.meta.url);
const WRANGLER = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");

/**
 * Runs the Worker under `wrangler dev` (miniflare/workerd) with Durable Objects, R2 and
 * Queues persisted under persistDir, and waits until it answers /health.
 */
export async function startWorker(opts: {
  port: number;
  persistDir: string;
  /** DevTools port; defaults to a free one so several stacks can run side by side. */
  inspectorPort?: number;
  vars: Record<string, string>;
  log?: (line: string) => void;
}): Promise<RunningWorker> {
  const log = opts.log ?? (() => {});
  const inspectorPort = opts.inspectorPort ?? (await freePort());
  const args = [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", String(opts.port), "--inspector-port", String(inspectorPort), "--persist-to", opts.persistDir, "--show-interactive-dev-session=false", "--log-level", "log"];
  for (const [k, v] of Object.entries(opts.vars)) args.push("--var", `${k}:${v}`);
  // process.execPath is the project's Node 22 (node_modules/.bin/node) that runs this script.
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" }, detached: true });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) log(line);
  };
  child.stdout!.on("data", forward);
  child.stderr!.on("data", forward);
  const url = `http://127.0.0.1:${opts.port}`;
  await waitForHealth(url, child);
  return { url, stop: () => stopProcessGroup(child) };
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  let exited = false;
  child.once("exit", () => (exited = true));
  for (let i = 0; i < 600; i++) {
    if (exited) throw new Error("wrangler dev exited during start-up; see the log above");
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  await stopProcessGroup(child);
  throw new Error(`the Worker did not answer ${url}/health within 120 s`);
}

function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, 5_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      resolve();
    }
  });
}
