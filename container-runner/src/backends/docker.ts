import { request as httpRequest } from "node:http";
import type { AppHandle, Backend, CommandSpec, ExitInfo, LogSink } from "./backend.ts";
import { exitOrKill, lineBuffer } from "./backend.ts";
import * as api from "./docker-requests.ts";

/** Sends one Engine API request; `onChunk` streams the body instead of buffering it. */
export type DockerTransport = (req: api.DockerRequest, onChunk?: (chunk: Uint8Array) => void) => Promise<{ status: number; body: any }>;

/**
 * Apps as Docker containers (production): one container per build step and one for the
 * app, with the plan's memory and CPU, the app port published on the host's loopback.
 * Only the request building is exercised here (no engine on this machine).
 */
export class DockerBackend implements Backend {
  readonly name = "docker";
  private readonly transport: DockerTransport;
  private readonly staticServerDir: string;

  constructor(transport: DockerTransport, staticServerDir: string) {
    this.transport = transport;
    this.staticServerDir = staticServerDir;
  }

  describe(): string[] {
    return ["backend: docker (Engine API); plan memory and CPU enforced by the engine."];
  }

  private async call(req: api.DockerRequest): Promise<any> {
    const res = await this.transport(req);
    if (res.status >= 300 && res.status !== 304) throw new Error(`Docker ${req.method} ${req.path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  }

  private async run(spec: CommandSpec, role: string, port: number | undefined, log: LogSink): Promise<{ id: string; exited: Promise<ExitInfo> }> {
    const created = await this.call(api.createContainer(spec, { role, port, staticServerDir: this.staticServerDir }));
    const id: string = created.Id;
    const lines = lineBuffer(log);
    let pending: Uint8Array = new Uint8Array(0);
    void this.transport(api.containerLogs(id), (chunk) => {
      const joined = new Uint8Array(pending.length + chunk.length);
      joined.set(pending);
      joined.set(chunk, pending.length);
      const { text, rest } = api.demuxLogFrames(joined);
      pending = rest;
      if (text) lines.push(text);
    }).catch(() => {});
    await this.call(api.startContainer(id));
    const exited = this.call(api.waitContainer(id)).then(
      (body) => (lines.end(), { code: Number(body?.StatusCode ?? -1), signal: null }),
      () => ({ code: null, signal: null }),
    );
    return { id, exited };
  }

  async runStep(spec: CommandSpec, log: LogSink, opts: { signal: AbortSignal; timeoutMs: number }): Promise<ExitInfo> {
    const { id, exited } = await this.run(spec, `build-${Date.now()}`, undefined, log);
    const kill = () => void this.call(api.removeContainer(id)).catch(() => {});
    try {
      return await exitOrKill(exited, kill, opts);
    } finally {
      await this.call(api.removeContainer(id)).catch(() => {});
    }
  }

  async startApp(spec: CommandSpec & { port: number }, log: LogSink): Promise<AppHandle> {
    const { id, exited } = await this.run(spec, `app-${Date.now()}`, spec.port, log);
    const info = await this.call(api.inspectContainer(id));
    const binding = info?.NetworkSettings?.Ports?.[`${spec.port}/tcp`]?.[0];
    return {
      host: binding?.HostIp || "127.0.0.1",
      port: Number(binding?.HostPort ?? spec.port),
      exited,
      stop: async () => {
        await this.call(api.stopContainer(id)).catch(() => {});
        await exited;
      },
    };
  }

  async close(): Promise<void> {}

  async release(deploymentId: string): Promise<void> {
    const containers: { Id: string }[] = (await this.call(api.listDeploymentContainers(deploymentId)).catch(() => [])) ?? [];
    for (const c of containers) await this.call(api.removeContainer(c.Id)).catch(() => {});
  }
}

/** The Engine API over its unix socket. */
export function unixSocketTransport(socketPath: string): DockerTransport {
  return (req, onChunk) =>
    new Promise((resolve, reject) => {
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      const r = httpRequest({ socketPath, method: req.method, path: req.path, headers: body ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => (onChunk ? onChunk(c) : chunks.push(c)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      r.on("error", reject);
      r.end(body);
    });
}
