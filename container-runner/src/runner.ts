import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { mkdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { appUrl, type RunnerConfig } from "./config.ts";
import type { Backend } from "./backends/backend.ts";
import { ProcessBackend } from "./backends/process.ts";
import { DockerBackend, unixSocketTransport } from "./backends/docker.ts";
import { discoverToolchains, type Toolchains } from "./toolchains.ts";
import { DeploymentLogs } from "./logs.ts";
import { StatusReporter } from "./reporter.ts";
import { Deployer } from "./deployer.ts";
import { createRunnerServer } from "./server.ts";

const SRC_DIR = dirname(fileURLToPath(import.meta.url));

/** This runner's cgroup parent: stable for its data directory, distinct from other runners'. */
function runnerGroupName(dataDir: string): string {
  return `runner-${createHash("sha256").update(dataDir).digest("hex").slice(0, 12)}`;
}
export const STATIC_SERVER = join(SRC_DIR, "static-server.ts");

export type RunningRunner = { url: string; port: number; backend: Backend; deployer: Deployer; toolchains: Toolchains; stop(): Promise<void> };

/**
 * Starts a container-runner: toolchains found, backend chosen and probed (what isolation
 * and limits apply is logged), apps of an earlier run cleared, the HTTP server listening.
 */
export async function startRunner(config: RunnerConfig, log: (line: string) => void = (l) => console.log(`[runner] ${l}`)): Promise<RunningRunner> {
  const dataDir = resolve(config.RUNNER_DATA_DIR);
  // Apps of an earlier run died with it (bwrap --die-with-parent); their files are stale.
  await rm(join(dataDir, "apps"), { recursive: true, force: true });
  await mkdir(join(dataDir, "apps"), { recursive: true });
  const toolchains = await discoverToolchains();
  const backend: Backend =
    config.RUNNER_BACKEND === "docker"
      ? new DockerBackend(unixSocketTransport(config.RUNNER_DOCKER_SOCKET), SRC_DIR)
      : await ProcessBackend.create({ sandbox: config.RUNNER_SANDBOX, cgroups: config.RUNNER_CGROUPS, cgroupRoot: config.RUNNER_CGROUP_ROOT, cgroupGroup: runnerGroupName(dataDir), readOnly: [SRC_DIR] });
  const logs = new DeploymentLogs(join(dataDir, "logs"));
  await logs.init();
  const reporter = new StatusReporter(config.RUNNER_SECRET, log);
  const deployer = new Deployer({ config: { ...config, RUNNER_DATA_DIR: dataDir }, backend, logs, reporter, toolchains, staticServer: STATIC_SERVER, appUrl: (slug) => appUrl(config, slug, port) });
  let port = config.RUNNER_PORT;
  const toolchainSummary = Object.fromEntries(Object.entries(toolchains).map(([k, t]) => [k, t!.version]));
  const server = createRunnerServer({ config, deployer, logs, health: () => ({ ok: true, pid: process.pid, backend: backend.name, isolation: backend.describe(), toolchains: toolchainSummary }) });
  await new Promise<void>((ok, fail) => server.once("error", fail).listen(config.RUNNER_PORT, config.RUNNER_HOST, ok));
  port = (server.address() as AddressInfo).port;
  log(`backend: ${backend.name}`);
  for (const note of backend.describe()) log(note);
  const missing = (["node", "python", "go", "rust"] as const).filter((t) => !toolchains[t]);
  log(`toolchains: ${Object.entries(toolchainSummary).map(([k, v]) => `${k} ${v}`).join(", ")}${missing.length ? `; not installed: ${missing.join(", ")}` : ""}`);
  return {
    url: `http://${config.RUNNER_HOST}:${port}`,
    port,
    backend,
    deployer,
    toolchains,
    stop: async () => {
      await deployer.shutdown();
      await backend.close();
      // Last reports get a few seconds; a Worker that is gone already must not hold the shutdown.
      await Promise.race([reporter.drain(), new Promise((r) => setTimeout(r, 5_000))]);
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    },
  };
}
