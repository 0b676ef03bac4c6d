import { basename } from "node:path";
import type { CommandSpec } from "./backend.ts";

/** One Docker Engine API call (API version in the path prefix, JSON body). */
export type DockerRequest = { method: "GET" | "POST" | "DELETE"; path: string; body?: unknown };

export const DOCKER_API = "/v1.43";
export const APP_DIR = "/app";
export const CACHE_DIR = "/cache";

/** The image per toolchain; static sites use the Node image with the runner's static server. */
export const IMAGES: Record<string, string> = {
  node: "node:22-bookworm-slim",
  python: "python:3.12-slim-bookworm",
  go: "golang:1.23-bookworm",
  rust: "rust:1-slim-bookworm",
};

/** Host toolchain paths become plain command names: images have their tools on PATH. */
export function containerArgv(spec: CommandSpec, staticServerDir?: string): string[] {
  const binDirs = spec.toolchain?.binDirs ?? [];
  const npmCli = spec.toolchain?.env.SLIPWAY_NPM_CLI;
  const argv = [...spec.argv];
  if (npmCli && argv[1] === npmCli) argv.splice(0, 2, "npm");
  return argv.map((arg) => {
    if (binDirs.some((d) => arg.startsWith(`${d}/`))) return basename(arg);
    if (staticServerDir && arg.startsWith(`${staticServerDir}/`)) return `/opt/slipway/${arg.slice(staticServerDir.length + 1)}`;
    return arg;
  });
}

export function containerName(spec: CommandSpec, role: string): string {
  return `slipway-${spec.project}-${spec.deploymentId}-${role}`.replace(/[^a-zA-Z0-9_.-]/g, "-");
}

/** POST /containers/create for a build step or the app, with the plan's memory and CPU. */
export function createContainer(spec: CommandSpec, opts: { role: string; port?: number; staticServerDir?: string }): DockerRequest {
  const memory = spec.limits.memory_mb * 1024 * 1024;
  const env = { HOME: "/tmp", npm_config_cache: `${CACHE_DIR}/npm`, PIP_CACHE_DIR: `${CACHE_DIR}/pip`, CARGO_HOME: `${CACHE_DIR}/cargo`, GOPATH: `${CACHE_DIR}/go`, GOCACHE: `${CACHE_DIR}/go-build`, ...spec.env, ...(opts.port ? { PORT: String(opts.port) } : {}) };
  const binds = [`${spec.dir}:${APP_DIR}`, `${spec.cacheDir}:${CACHE_DIR}`];
  if (opts.staticServerDir) binds.push(`${opts.staticServerDir}:/opt/slipway:ro`);
  const portKey = opts.port ? `${opts.port}/tcp` : undefined;
  return {
    method: "POST",
    path: `${DOCKER_API}/containers/create?name=${encodeURIComponent(containerName(spec, opts.role))}`,
    body: {
      Image: IMAGES[spec.toolchain?.name ?? "node"] ?? IMAGES.node,
      Cmd: containerArgv(spec, opts.staticServerDir),
      WorkingDir: APP_DIR,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: { "slipway.project": spec.project, "slipway.deployment": spec.deploymentId, "slipway.role": opts.role },
      ...(portKey ? { ExposedPorts: { [portKey]: {} } } : {}),
      HostConfig: {
        Binds: binds,
        Memory: memory,
        MemorySwap: memory,
        NanoCpus: Math.round(spec.limits.cpus * 1e9),
        PidsLimit: 512,
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        RestartPolicy: { Name: "no" },
        ...(portKey ? { PortBindings: { [portKey]: [{ HostIp: "127.0.0.1", HostPort: "" }] } } : {}),
      },
    },
  };
}

export const startContainer = (id: string): DockerRequest => ({ method: "POST", path: `${DOCKER_API}/containers/${id}/start` });
export const waitContainer = (id: string): DockerRequest => ({ method: "POST", path: `${DOCKER_API}/containers/${id}/wait?condition=not-running` });
export const stopContainer = (id: string, graceSeconds = 5): DockerRequest => ({ method: "POST", path: `${DOCKER_API}/containers/${id}/stop?t=${graceSeconds}` });
export const removeContainer = (id: string): DockerRequest => ({ method: "DELETE", path: `${DOCKER_API}/containers/${id}?force=true&v=true` });
export const inspectContainer = (id: string): DockerRequest => ({ method: "GET", path: `${DOCKER_API}/containers/${id}/json` });
export const containerLogs = (id: string): DockerRequest => ({ method: "GET", path: `${DOCKER_API}/containers/${id}/logs?follow=true&stdout=true&stderr=true` });
export const listDeploymentContainers = (deploymentId: string): DockerRequest => ({
  method: "GET",
  path: `${DOCKER_API}/containers/json?all=true&filters=${encodeURIComponent(JSON.stringify({ label: [`slipway.deployment=${deploymentId}`] }))}`,
});

/** Splits Docker's multiplexed log stream (8-byte frame headers) into text; returns the unread rest. */
export function demuxLogFrames(buffer: Uint8Array): { text: string; rest: Uint8Array } {
  let offset = 0;
  let text = "";
  const decoder = new TextDecoder();
  while (buffer.length - offset >= 8) {
    const size = ((buffer[offset + 4] << 24) >>> 0) + (buffer[offset + 5] << 16) + (buffer[offset + 6] << 8) + buffer[offset + 7];
    if (buffer.length - offset - 8 < size) break;
    text += decoder.decode(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  return { text, rest: buffer.subarray(offset) };
}
