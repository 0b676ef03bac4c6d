import { request } from "node:http";

/**
 * Resolves once something answers HTTP on host:port (any status counts: the app is up),
 * rejects with the reason when `exited` settles first, the time runs out, or abort.
 */
export async function waitUntilAnswering(opts: { host: string; port: number; timeoutMs: number; exited: Promise<unknown>; signal: AbortSignal }): Promise<void> {
  let exited = false;
  void opts.exited.then(() => (exited = true));
  const deadline = Date.now() + opts.timeoutMs;
  let delay = 50;
  while (true) {
    if (opts.signal.aborted) throw new Error("cancelled");
    if (exited) throw new Error("the app exited before it answered on $PORT");
    if (await answers(opts.host, opts.port)) return;
    if (Date.now() > deadline) throw new Error(`the app did not answer HTTP on $PORT (${opts.port}) within ${Math.round(opts.timeoutMs / 1000)} s; it must listen on the port given in the PORT environment variable`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 500);
  }
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: "/", method: "GET", timeout: 2_000, headers: { "User-Agent": "slipway-runner-readiness" } }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}
