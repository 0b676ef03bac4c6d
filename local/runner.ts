import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export type RunningRunner = { url: string; port: number; pid(): number | undefined; stop(): Promise<void> };

const MAIN = fileURLToPath(new URL("../container-runner/src/main.ts", import.meta.url));

/**
 * Runs the container-runner as its own process (the project's Node 22), the way it runs in
 * production, and restarts it if it dies, like a process supervisor would. Waits until
 * it answers /health.
 */
export async function startRunnerProcess(opts: { port: number; env: Record<string, string>; log: (line: string) => void }): Promise<RunningRunner> {
  const url = `http://127.0.0.1:${opts.port}`;
  let child: ChildProcess;
  let stopping = false;
  const launch = () => {
    child = spawn(process.execPath, [MAIN], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...opts.env, RUNNER_HOST: "127.0.0.1", RUNNER_PORT: String(opts.port) } });
    const forward = (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) if (line.trim()) opts.log(line.replace(/^\[runner\] /, ""));
    };
    child.stdout!.on("data", forward);
    child.stderr!.on("data", forward);
    child.once("exit", (code, signal) => {
      if (stopping) return;
      opts.log(`the container-runner exited (${signal ?? `code ${code}`}); restarting it`);
      setTimeout(launch, 500);
    });
  };
  launch();
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (i > 150) throw new Error(`the container-runner did not answer ${url}/health within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port: opts.port,
    pid: () => child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.once("exit", () => (clearTimeout(timer), resolve()));
        child.kill("SIGTERM");
      }),
  };
}
