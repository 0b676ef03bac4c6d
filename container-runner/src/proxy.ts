import { request, type IncomingMessage, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { Duplex } from "node:stream";

export type Target = { host: string; port: number };

/** The project slug a Host header names under the apps domain (`<slug>.<domain>[:port]`), or null. */
export function slugFromHost(hostHeader: string | undefined, appsDomain: string): string | null {
  const host = (hostHeader ?? "").toLowerCase().replace(/:\d+$/, "");
  const suffix = `.${appsDomain.toLowerCase()}`;
  if (!host.endsWith(suffix)) return null;
  const slug = host.slice(0, -suffix.length);
  return /^[a-z0-9-]{3,32}$/.test(slug) ? slug : null;
}

function forwardedHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const prior = req.headers["x-forwarded-for"];
  return {
    ...req.headers,
    "x-forwarded-for": [prior, req.socket.remoteAddress].filter(Boolean).join(", "),
    "x-forwarded-host": req.headers.host,
    "x-forwarded-proto": "http",
  };
}

/** Passes one HTTP request through to the app and its answer back, streaming both ways. */
export function proxyHttp(req: IncomingMessage, res: ServerResponse, target: Target): void {
  const upstream = request({ host: target.host, port: target.port, method: req.method, path: req.url, headers: forwardedHeaders(req) }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as Record<string, string>);
    answer.pipe(res);
  });
  upstream.on("error", () => {
    if (!res.headersSent) res.writeHead(502, { "Content-Type": "text/plain; charset=utf-8" });
    res.end("The app is not answering right now.\n");
  });
  req.pipe(upstream);
}

/** Passes a protocol upgrade (WebSocket) through as raw bytes. */
export function proxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, target: Target): void {
  const upstream = connect(target.port, target.host, () => {
    const headers = forwardedHeaders(req);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (const [k, v] of Object.entries(headers)) for (const value of [v].flat()) if (value !== undefined) lines.push(`${k}: ${value}`);
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(socket).pipe(upstream);
  });
  upstream.on("error", () => socket.destroy());
  socket.on("error", () => upstream.destroy());
}
