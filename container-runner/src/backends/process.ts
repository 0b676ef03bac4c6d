import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import type { AppHandle, Backend, CommandSpec, ExitInfo, LogSink } from "./backend.ts";
import { exitOrKill, lineBuffer } from "./backend.ts";
import { bwrapArgs, SANDBOX_CACHE_DIR } from "./sandbox.ts";
import { CgroupsV1 } from "./cgroups.ts";

const STOP_GRACE_MS = 5_000;
// Joins the cgroups named in $SLIPWAY_CGROUP_PROCS, then becomes the command.
const JOIN_CGROUPS = 'for f in $SLIPWAY_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; exec "$@"';

/**
 * Apps as child processes of the runner: each command inside bubblewrap (when installed)
 * and in its deployment's cgroups (when writable). What is missing is said, not hidden.
 */
export class ProcessBackend implements Backend {
  readonly name = "process";
  private readonly bwrap: string | null;
  private readonly cgroups: CgroupsV1;
  private readonly extraReadOnly: string[];
  private readonly notes: string[];

  private constructor(bwrap: string | null, cgroups: CgroupsV1, extraReadOnly: string[], notes: string[]) {
    this.bwrap = bwrap;
    this.cgroups = cgroups;
    this.extraReadOnly = extraReadOnly;
    this.notes = notes;
  }

  static async create(opts: { sandbox: "auto" | "off"; cgroups: "auto" | "off"; cgroupRoot: string; cgroupGroup: string; readOnly: string[] }): Promise<ProcessBackend> {
    const notes: string[] = [];
    let bwrap: string | null = null;
    if (opts.sandbox === "off") notes.push("WARNING: isolation is OFF (RUNNER_SANDBOX=off): apps run as plain child processes and can read this machine's files.");
    else {
      bwrap = findBwrap();
      if (!bwrap) notes.push("WARNING: bubblewrap (bwrap) is not installed: apps run as plain child processes without isolation. Install it with `apt-get install -y bubblewrap`.");
      else notes.push(`isolation: bubblewrap (${bwrap}): private root with read-only system and toolchain, new PID/IPC/UTS namespaces, shared network.`);
    }
    const cgroups = opts.cgroups === "off" ? CgroupsV1.disabled("cgroups disabled (RUNNER_CGROUPS=off)") : await CgroupsV1.probe(opts.cgroupRoot, opts.cgroupGroup);
    await cgroups.removeAll();
    if (cgroups.memory && cgroups.cpu) notes.push("limits: cgroups v1 memory and cpu (plan RAM and CPU enforced).");
    for (const problem of cgroups.problems) notes.push(`WARNING: ${problem}; that limit is NOT enforced.`);
    return new ProcessBackend(bwrap, cgroups, opts.readOnly, notes);
  }

  describe(): string[] {
    return this.notes;
  }

  /** The memory limit a deployment's cgroup carries, or null without one. */
  memoryLimit(deploymentId: string): Promise<number | null> {
    return this.cgroups.memoryLimit(deploymentId);
  }

  private async launch(spec: CommandSpec, port: number | null): Promise<ChildProcess> {
    await mkdir(spec.cacheDir, { recursive: true });
    const procs = await this.cgroups.create(spec.deploymentId, spec.limits);
    const inside = this.bwrap !== null;
    const home = inside ? "/tmp" : `${spec.dir}/.slipway-home`;
    const cache = inside ? SANDBOX_CACHE_DIR : spec.cacheDir;
    const path = [...(spec.toolchain?.binDirs ?? []), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
    const env: Record<string, string> = {
      PATH: path, HOME: home, LANG: "C.UTF-8", TMPDIR: "/tmp",
      npm_config_cache: `${cache}/npm`, npm_config_update_notifier: "false", PIP_CACHE_DIR: `${cache}/pip`, CARGO_HOME: `${cache}/cargo`,
      GOPATH: `${cache}/go`, GOCACHE: `${cache}/go-build`, GOFLAGS: "-mod=mod",
      ...spec.toolchain?.env,
      ...spec.env,
    };
    if (port !== null) env.PORT = String(port);
    const command = inside ? [this.bwrap!, ...bwrapArgs({ dir: spec.dir, cacheDir: spec.cacheDir, readOnly: [...(spec.toolchain?.roots ?? []), ...this.extraReadOnly], env, argv: spec.argv })] : spec.argv;
    if (!inside) await mkdir(home, { recursive: true });
    return spawn("/bin/sh", ["-c", JOIN_CGROUPS, "sh", ...command], {
      cwd: spec.dir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: inside ? { SLIPWAY_CGROUP_PROCS: procs.join(" "), PATH: "/usr/bin:/bin" } : { ...env, SLIPWAY_CGROUP_PROCS: procs.join(" ") },
    });
  }

  async runStep(spec: CommandSpec, log: LogSink, opts: { signal: AbortSignal; timeoutMs: number }): Promise<ExitInfo> {
    const child = await this.launch(spec, null);
    const exited = watch(child, log);
    return exitOrKill(exited, () => killGroup(child, "SIGKILL"), opts);
  }

  async startApp(spec: CommandSpec & { port: number }, log: LogSink): Promise<AppHandle> {
    const child = await this.launch(spec, spec.port);
    const exited = watch(child, log);
    return {
      host: "127.0.0.1",
      port: spec.port,
      exited,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        killGroup(child, "SIGTERM");
        const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      },
    };
  }

  async release(deploymentId: string): Promise<void> {
    await this.cgroups.remove(deploymentId);
  }

  async close(): Promise<void> {
    await this.cgroups.close();
  }
}

function watch(child: ChildProcess, log: LogSink): Promise<ExitInfo> {
  const out = lineBuffer(log);
  const err = lineBuffer(log);
  child.stdout!.on("data", (d) => out.push(d));
  child.stderr!.on("data", (d) => err.push(d));
  return new Promise((resolve) => {
    child.once("error", (e) => {
      log(`could not start: ${e.message}`);
      resolve({ code: null, signal: null });
    });
    child.once("close", (code, signal) => {
      out.end();
      err.end();
      if (code === 125) log("could not join the deployment's cgroup");
      resolve({ code, signal });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {}
}

function findBwrap(): string | null {
  try {
    return execFileSync("sh", ["-c", "command -v bwrap"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}
