import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Limits } from "../protocol.ts";

const CPU_PERIOD_US = 100_000;

/**
 * cgroups v1 memory and cpu limits, one group per deployment under
 * `<root>/<controller>/slipway/<runner group>/`, the runner group being this runner's own
 * (named from its data directory), so a restarted runner can clear what its predecessor
 * left without touching other runners on the machine. A process joins by writing its pid
 * to the returned `cgroup.procs` files before it execs.
 */
export class CgroupsV1 {
  private readonly root: string;
  private readonly group: string;
  readonly memory: boolean;
  readonly cpu: boolean;
  readonly problems: string[];

  private constructor(root: string, group: string, memory: boolean, cpu: boolean, problems: string[]) {
    this.root = root;
    this.group = group;
    this.memory = memory;
    this.cpu = cpu;
    this.problems = problems;
  }

  /** Checks whether each controller is mounted and writable here. */
  static async probe(root: string, group: string): Promise<CgroupsV1> {
    const problems: string[] = [];
    const check = async (controller: string, file: string, value: string) => {
      const probeDir = join(root, controller, "slipway", `probe-${process.pid}`);
      try {
        await mkdir(probeDir, { recursive: true });
        await writeFile(join(probeDir, file), value);
        return true;
      } catch (err) {
        problems.push(`cgroups v1 ${controller} controller is not usable at ${join(root, controller)} (${(err as Error).message.split(",")[0]})`);
        return false;
      } finally {
        await rmdir(probeDir).catch(() => {});
      }
    };
    const memory = await check("memory", "memory.limit_in_bytes", String(64 * 1024 * 1024));
    const cpu = await check("cpu", "cpu.cfs_quota_us", String(CPU_PERIOD_US));
    return new CgroupsV1(root, group, memory, cpu, problems);
  }

  static disabled(reason: string): CgroupsV1 {
    return new CgroupsV1("", "", false, false, [reason]);
  }

  private dir(controller: "memory" | "cpu", id: string): string {
    return join(this.root, controller, "slipway", this.group, id.replace(/[^A-Za-z0-9_-]/g, "_"));
  }

  /** Removes this runner's (empty) parent groups when it stops. */
  async close(): Promise<void> {
    for (const controller of ["memory", "cpu"]) await rmdir(join(this.root, controller, "slipway", this.group)).catch(() => {});
  }

  /** Kills and removes every deployment group of this runner (left by a runner that died). */
  async removeAll(): Promise<void> {
    if (!this.memory && !this.cpu) return;
    const ids = new Set<string>();
    for (const controller of ["memory", "cpu"]) {
      const entries = await readdir(join(this.root, controller, "slipway", this.group), { withFileTypes: true }).catch(() => []);
      for (const e of entries) if (e.isDirectory()) ids.add(e.name);
    }
    for (const id of ids) await this.remove(id);
  }

  /** Creates (or updates) a deployment's groups; returns the cgroup.procs files to join. */
  async create(id: string, limits: Limits): Promise<string[]> {
    const procs: string[] = [];
    if (this.memory) {
      const dir = this.dir("memory", id);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "memory.limit_in_bytes"), String(limits.memory_mb * 1024 * 1024));
      await writeFile(join(dir, "memory.memsw.limit_in_bytes"), String(limits.memory_mb * 1024 * 1024)).catch(() => {});
      procs.push(join(dir, "cgroup.procs"));
    }
    if (this.cpu) {
      const dir = this.dir("cpu", id);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
      await writeFile(join(dir, "cpu.cfs_quota_us"), String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US))));
      procs.push(join(dir, "cgroup.procs"));
    }
    return procs;
  }

  /** The memory limit in force for a deployment, in bytes (for tests and diagnostics). */
  async memoryLimit(id: string): Promise<number | null> {
    if (!this.memory) return null;
    return Number(await readFile(join(this.dir("memory", id), "memory.limit_in_bytes"), "utf8").catch(() => NaN)) || null;
  }

  /** Kills whatever is left in a deployment's groups and removes them. */
  async remove(id: string): Promise<void> {
    for (const controller of ["memory", "cpu"] as const) {
      if (!(controller === "memory" ? this.memory : this.cpu)) continue;
      const dir = this.dir(controller, id);
      for (let attempt = 0; attempt < 20; attempt++) {
        const pids = (await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "")).split("\n").filter(Boolean);
        for (const pid of pids) {
          try {
            process.kill(Number(pid), "SIGKILL");
          } catch {}
        }
        if (await rmdir(dir).then(() => true, (e) => e.code === "ENOENT")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }
}
