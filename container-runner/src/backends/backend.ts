import type { Limits } from "../protocol.ts";
import type { Toolchain } from "../toolchains.ts";

/** One command for one deployment: a build step or the app itself. */
export type CommandSpec = {
  deploymentId: string;
  project: string;
  /** The app's files on the runner's disk; the command's working directory (/app inside). */
  dir: string;
  /** A per-project cache (npm, pip, cargo, go) kept between deploys. */
  cacheDir: string;
  argv: string[];
  env: Record<string, string>;
  limits: Limits;
  toolchain: Toolchain | null;
};

export type LogSink = (text: string) => void;
export type ExitInfo = { code: number | null; signal: string | null };

export type AppHandle = {
  /** Where the reverse proxy reaches the app. */
  host: string;
  port: number;
  /** Settles when the app's process (or container) ends, for whatever reason. */
  exited: Promise<ExitInfo>;
  /** Stops the app and waits for it to end. */
  stop(): Promise<void>;
};

/**
 * Where apps run. `process` (local default): child processes in bubblewrap, limited by
 * cgroups. `docker` (production): containers through the Docker Engine API. The deployer
 * sees only this interface.
 */
export interface Backend {
  readonly name: "process" | "docker";
  /** Sentences saying what isolation and limits apply here, for start-up and deploy logs. */
  describe(): string[];
  /** Runs a build step to its end; a timeout or abort kills it. */
  runStep(spec: CommandSpec, log: LogSink, opts: { signal: AbortSignal; timeoutMs: number }): Promise<ExitInfo>;
  /** Starts the app listening on `port`; resolves once it has been launched (not yet ready). */
  startApp(spec: CommandSpec & { port: number }, log: LogSink): Promise<AppHandle>;
  /** Frees what a deployment holds (cgroups, containers) once nothing of it runs. */
  release(deploymentId: string): Promise<void>;
  /** Frees what the backend itself holds, once every app is stopped. */
  close(): Promise<void>;
}

/** Turns chunks of output into whole lines (the last partial line waits for its end). */
export function lineBuffer(emit: LogSink): { push(chunk: Buffer | string): void; end(): void } {
  let pending = "";
  return {
    push(chunk) {
      pending += chunk.toString();
      const cut = pending.lastIndexOf("\n");
      if (cut < 0) {
        if (pending.length > 16_384) (emit(pending), (pending = ""));
        return;
      }
      emit(pending.slice(0, cut));
      pending = pending.slice(cut + 1);
    },
    end() {
      if (pending) emit(pending);
      pending = "";
    },
  };
}

/** Waits for a build step to exit, calling `kill` at the step's timeout or when the job is aborted. */
export async function exitOrKill(exited: Promise<ExitInfo>, kill: () => void, opts: { signal: AbortSignal; timeoutMs: number }): Promise<ExitInfo> {
  const timer = setTimeout(kill, opts.timeoutMs);
  opts.signal.addEventListener("abort", kill, { once: true });
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener("abort", kill);
  }
}
