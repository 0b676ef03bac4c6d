// Neon's WebSocket protocol: the driver opens ws://<proxy>/v2?address=<host>:<port>
// and sends the raw Postgres wire protocol as binary messages. We pipe those
// bytes to a TCP connection and back, with no knowledge of what they mean.
import { connect, type Socket } from "node:net";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket, type RawData } from "ws";

export type TunnelOptions = {
  isAllowedHost: (host: string) => boolean;
  log: (line: string) => void;
};

/** Returns an HTTP `upgrade` handler that tunnels each WebSocket to the Postgres named in `?address=`. */
export function createWebSocketTunnel(opts: TunnelOptions) {
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<Socket>();

  function handleUpgrade(req: IncomingMessage, head: Buffer, socket: Duplex): void {
    const url = new URL(req.url ?? "/", "http://proxy");
    const target = parseAddress(url.searchParams.get("address"));
    const refuse = (status: string, why: string) => {
      opts.log(`ws: refused ${req.url}: ${why}`);
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${why}\n`);
    };
    if (url.pathname !== "/v2" && url.pathname !== "/") return refuse("404 Not Found", "the WebSocket endpoint is /v2");
    if (!target) return refuse("400 Bad Request", "expected ?address=<host>:<port>");
    if (!opts.isAllowedHost(target.host)) return refuse("403 Forbidden", `host ${target.host} is not allowed; only loopback targets are`);
    wss.handleUpgrade(req, socket, head, (ws) => pipe(ws, target.host, target.port));
  }

  function pipe(ws: WebSocket, host: string, port: number): void {
    const tcp = connect({ host, port });
    sockets.add(tcp);
    tcp.setNoDelay(true);
    let closed = false;
    const close = (code: number, reason: string) => {
      if (closed) return;
      closed = true;
      sockets.delete(tcp);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason.slice(0, 120));
    };

    ws.on("message", (data: RawData) => {
      const chunk = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      // Backpressure: stop reading the WebSocket while Postgres is slow to take bytes.
      if (!tcp.write(chunk)) {
        ws.pause();
        tcp.once("drain", () => ws.resume());
      }
    });
    tcp.on("data", (chunk) => {
      ws.send(chunk, { binary: true });
    });
    ws.on("close", () => close(1000, ""));
    ws.on("error", (err) => {
      opts.log(`ws: client error: ${err.message}`);
      close(1011, "websocket error");
    });
    tcp.on("end", () => close(1000, "database closed the connection"));
    tcp.on("close", () => close(1000, "database closed the connection"));
    tcp.on("error", (err) => {
      opts.log(`ws: tcp ${host}:${port} error: ${err.message}`);
      close(1011, `could not reach the database at ${host}:${port}: ${err.message}`);
    });
  }

  /** Drops every open tunnel (both sides). */
  function closeAll(): void {
    for (const ws of wss.clients) ws.terminate();
    for (const tcp of sockets) tcp.destroy();
    sockets.clear();
    wss.close();
  }

  return { handleUpgrade, closeAll };
}

function parseAddress(address: string | null): { host: string; port: number } | undefined {
  if (!address) return undefined;
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address) ?? /^([^:]+)$/.exec(address);
  if (!m) return undefined;
  const port = m[2] === undefined ? 5432 : Number(m[2]);
  if (!(port > 0 && port < 65536)) return undefined;
  return { host: m[1]!, port };
}
