// A local stand-in for Neon's proxy: one HTTP server that answers both ways
// @neondatabase/serverless reaches Postgres, so Worker code runs unchanged
// against the local server:
//   GET  /v2?address=<host>:<port>  (WebSocket upgrade)  raw wire protocol tunnel
//   POST /sql                                            SQL over HTTP
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebSocketTunnel } from "./neon-proxy-ws.ts";
import { createSqlOverHttp } from "./neon-proxy-http.ts";

export type StartNeonProxyOptions = {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** Database hosts the proxy may connect to. Default: loopback only. */
  allowedHosts?: string[];
  log?: (line: string) => void;
};

export type RunningNeonProxy = {
  port: number;
  stop(): Promise<void>;
};

const LOOPBACK = ["127.0.0.1", "localhost", "::1"];

/** Starts the proxy on 127.0.0.1:port. Point the driver at it with useLocalNeonProxy("127.0.0.1:<port>"). */
export async function startNeonProxy(opts: StartNeonProxyOptions): Promise<RunningNeonProxy> {
  const log = opts.log ?? (() => {});
  const allowed = new Set((opts.allowedHosts ?? LOOPBACK).map((h) => h.toLowerCase()));
  const isAllowedHost = (host: string) => allowed.has(host.toLowerCase());

  const tunnel = createWebSocketTunnel({ isAllowedHost, log });
  const sql = createSqlOverHttp({ isAllowedHost, log });

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://proxy").pathname;
    if (path === "/sql") return void sql.handle(req, res);
    const body = JSON.stringify({ message: "not found: use POST /sql or a WebSocket to /v2?address=host:port" });
    res.writeHead(404, { "Content-Type": "application/json" }).end(body);
  });
  server.on("upgrade", (req, socket, head) => {
    socket.on("error", (err) => log(`ws: upgrade socket error: ${err.message}`));
    tunnel.handleUpgrade(req, head, socket);
  });
  server.on("clientError", (err, socket) => {
    log(`http: client error: ${err.message}`);
    socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log(`neon proxy listening on 127.0.0.1:${port}`);

  let stopped: Promise<void> | undefined;
  async function stop(): Promise<void> {
    tunnel.closeAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.all([closed, sql.close()]);
  }
  return { port, stop: () => (stopped ??= stop()) };
}
