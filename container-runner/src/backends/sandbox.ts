/**
 * bubblewrap arguments for one command: a fresh root with the system directories and the
 * toolchain read-only, the app's directory at /app and its cache at /cache writable, a
 * private /tmp, /proc and /dev, and new PID, IPC and UTS namespaces. The network is shared
 * so the app can listen on the runner's loopback and reach the database.
 */
export const SANDBOX_APP_DIR = "/app";
export const SANDBOX_CACHE_DIR = "/cache";

const SYSTEM_READ_ONLY = ["/usr", "/etc"];
const SYSTEM_LINKS: [string, string][] = [["usr/bin", "/bin"], ["usr/sbin", "/sbin"], ["usr/lib", "/lib"], ["usr/lib64", "/lib64"]];

export function bwrapArgs(opts: { dir: string; cacheDir: string; readOnly: string[]; env: Record<string, string>; argv: string[] }): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "app"];
  for (const path of SYSTEM_READ_ONLY) args.push("--ro-bind", path, path);
  for (const [target, link] of SYSTEM_LINKS) args.push("--symlink", target, link);
  // The private /tmp comes before the toolchain binds: bwrap mounts in order, and a
  // toolchain under /tmp (a checkout there, say) must not be hidden by it.
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");
  for (const path of dedupe(opts.readOnly)) if (!SYSTEM_READ_ONLY.some((s) => path === s || path.startsWith(`${s}/`))) args.push("--ro-bind", path, path);
  args.push("--bind", opts.dir, SANDBOX_APP_DIR, "--bind", opts.cacheDir, SANDBOX_CACHE_DIR, "--chdir", SANDBOX_APP_DIR);
  args.push("--clearenv");
  for (const [k, v] of Object.entries(opts.env)) args.push("--setenv", k, v);
  args.push("--", ...opts.argv);
  return args;
}

function dedupe(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  return sorted.filter((p, i) => !sorted.slice(0, i).some((q) => p.startsWith(`${q}/`)));
}
