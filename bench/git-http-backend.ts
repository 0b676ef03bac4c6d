// The peer for bench/git.ts: git's own smart HTTP server, `git http-backend` (Debian's git
// ships it), behind a tiny CGI bridge on loopback. Repositories live under `root`.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { existsSync } from "node:fs";

const BACKEND = ["/usr/lib/git-core/git-http-backend", "/usr/libexec/git-core/git-http-backend"].find((p) => existsSync(p));

export type Peer = { url: string; stop(): Promise<void> };

/** Serves every bare repository under `root` at http://127.0.0.1:<port>/<name>.git. */
export async function startGitHttpBackend(root: string): Promise<Peer> {
  if (!BACKEND) throw new Error("git-http-backend not found: install Debian's git package");
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url!, "http://localhost");
    const env: Record<string, string> = {
      PATH: process.env.PATH!,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: req.method!,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: "bench",
      REMOTE_ADDR: "127.0.0.1",
      GATEWAY_INTERFACE: "CGI/1.1",
      SERVER_PROTOCOL: "HTTP/1.1",
    };
    if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
    if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];
    if (req.headers["git-protocol"]) env.GIT_PROTOCOL = req.headers["git-protocol"] as string;
    const cgi = spawn(BACKEND, [], { env, stdio: ["pipe", "pipe", "inherit"] });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}
