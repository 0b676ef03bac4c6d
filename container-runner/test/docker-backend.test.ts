import { describe, expect, it } from "vitest";
import { DockerBackend, type DockerTransport } from "../src/backends/docker.ts";
import { createContainer, containerArgv, demuxLogFrames, IMAGES } from "../src/backends/docker-requests.ts";
import type { CommandSpec } from "../src/backends/backend.ts";

// No Docker engine runs here: these tests pin the Engine API requests the backend sends.
const nodeToolchain = { name: "node" as const, version: "v22", binDirs: ["/opt/node/bin"], roots: ["/opt/node"], env: { SLIPWAY_NPM_CLI: "/usr/lib/node_modules/npm/bin/npm-cli.js" } };
const spec: CommandSpec = { deploymentId: "dep1", project: "my-app", dir: "/data/apps/my-app/dep1", cacheDir: "/data/cache/my-app", argv: ["/opt/node/bin/node", "server.js"], env: { DATABASE_URL: "postgres://x" }, limits: { memory_mb: 1024, cpus: 1 }, toolchain: nodeToolchain };

describe("Docker Engine API requests", () => {
  it("creates the app container with the plan's memory and CPU, the app bound at /app and the port published on loopback", () => {
    const req = createContainer(spec, { role: "app", port: 5000 });
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1.43/containers/create?name=slipway-my-app-dep1-app");
    const body = req.body as any;
    expect(body.Image).toBe(IMAGES.node);
    expect(body.Cmd).toEqual(["node", "server.js"]);
    expect(body.Env).toEqual(expect.arrayContaining(["PORT=5000", "DATABASE_URL=postgres://x"]));
    expect(body.HostConfig).toMatchObject({ Memory: 1024 * 1024 * 1024, MemorySwap: 1024 * 1024 * 1024, NanoCpus: 1e9, Binds: ["/data/apps/my-app/dep1:/app", "/data/cache/my-app:/cache"], PortBindings: { "5000/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] } });
    expect(body.Labels).toEqual({ "slipway.project": "my-app", "slipway.deployment": "dep1", "slipway.role": "app" });
  });

  it("turns host toolchain paths into the image's commands (npm through its CLI becomes npm)", () => {
    expect(containerArgv({ ...spec, argv: ["/opt/node/bin/node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "install"] })).toEqual(["npm", "install"]);
    expect(containerArgv({ ...spec, argv: ["/opt/node/bin/node", "/srv/runner/src/static-server.ts", "."] }, "/srv/runner/src")).toEqual(["node", "/opt/slipway/static-server.ts", "."]);
  });

  it("splits the multiplexed log stream into text and keeps a partial frame", () => {
    const frame = (stream: number, text: string) => {
      const payload = new TextEncoder().encode(text);
      const f = new Uint8Array(8 + payload.length);
      f[0] = stream;
      new DataView(f.buffer).setUint32(4, payload.length);
      f.set(payload, 8);
      return f;
    };
    const a = frame(1, "hello\n");
    const b = frame(2, "oops\n");
    const joined = new Uint8Array([...a, ...b.subarray(0, 6)]);
    const { text, rest } = demuxLogFrames(joined);
    expect(text).toBe("hello\n");
    expect(rest.length).toBe(6);
  });

  it("runs a build step as create, start, wait and remove, and returns the exit code", async () => {
    const calls: string[] = [];
    const transport: DockerTransport = async (req) => {
      calls.push(`${req.method} ${req.path.split("?")[0]}`);
      if (req.path.includes("/containers/create")) return { status: 201, body: { Id: "c1" } };
      if (req.path.endsWith("/wait?condition=not-running")) return { status: 200, body: { StatusCode: 3 } };
      return { status: 204, body: null };
    };
    const backend = new DockerBackend(transport, "/srv/runner/src");
    const exit = await backend.runStep(spec, () => {}, { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(exit).toEqual({ code: 3, signal: null });
    expect(calls).toEqual(["POST /v1.43/containers/create", "GET /v1.43/containers/c1/logs", "POST /v1.43/containers/c1/start", "POST /v1.43/containers/c1/wait", "DELETE /v1.43/containers/c1"]);
  });

  it("starts the app and reads the published host port from the container", async () => {
    const transport: DockerTransport = async (req) => {
      if (req.path.includes("/containers/create")) return { status: 201, body: { Id: "c2" } };
      if (req.path.endsWith("/json")) return { status: 200, body: { NetworkSettings: { Ports: { "5000/tcp": [{ HostIp: "127.0.0.1", HostPort: "49153" }] } } } };
      if (req.path.includes("/wait")) return new Promise(() => {});
      return { status: 204, body: null };
    };
    const app = await new DockerBackend(transport, "/srv").startApp({ ...spec, port: 5000 }, () => {});
    expect({ host: app.host, port: app.port }).toEqual({ host: "127.0.0.1", port: 49153 });
  });
});
