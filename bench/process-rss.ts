// Resident memory of a process tree, read from /proc (Linux only; elsewhere nothing is read).
import { readdir, readFile } from "node:fs/promises";

export type TreeRss = { totalBytes: number; processes: { pid: number; name: string; rssBytes: number }[] };

/** The first direct child of `parentPid` whose command line contains `match`. */
export async function findChild(parentPid: number, match: string): Promise<number | undefined> {
  for (const pid of await listPids()) {
    if ((await parentOf(pid)) !== parentPid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(match)) return pid;
  }
  return undefined;
}

/** RSS of `rootPid` and all its descendants, right now. */
export async function treeRss(rootPid: number): Promise<TreeRss> {
  const parents = new Map<number, number>();
  for (const pid of await listPids()) {
    const ppid = await parentOf(pid);
    if (ppid !== undefined) parents.set(pid, ppid);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parents.get(p)) if (p === rootPid) return true;
    return false;
  };
  const processes: TreeRss["processes"] = [];
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    const name = /^Name:\s+(.*)$/m.exec(status)?.[1] ?? "?";
    processes.push({ pid, name, rssBytes: rssKb * 1024 });
  }
  return { totalBytes: processes.reduce((sum, p) => sum + p.rssBytes, 0), processes };
}

/** Samples the tree every `everyMs` until stop(), which returns the sample with the highest total. */
export function samplePeakRss(rootPid: number, everyMs = 100): { stop(): Promise<TreeRss> } {
  let peak: TreeRss = { totalBytes: 0, processes: [] };
  let running = true;
  const loop = (async () => {
    while (running) {
      const now = await treeRss(rootPid);
      if (now.totalBytes > peak.totalBytes) peak = now;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}

async function listPids(): Promise<number[]> {
  const entries = await readdir("/proc").catch(() => [] as string[]);
  return entries.filter((e) => /^\d+$/.test(e)).map(Number);
}

async function parentOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // Fields after the parenthesised command name: state, ppid, …
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[1] ? Number(fields[1]) : undefined;
}
