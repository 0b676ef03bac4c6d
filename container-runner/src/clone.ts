import { spawn } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

export class CloneError extends Error {}

/**
 * A shallow, single-branch clone with the real git, bounded in time and size. Returns the
 * commit id. No prompts, no hooks, no submodules; `file://` is only reachable when the
 * caller allowed it (RepoUrlPolicy decides before this runs).
 */
export async function cloneRepository(opts: {
  url: string;
  branch: string;
  dest: string;
  /** Outside repositories follow no redirects (a redirect could lead to a private address). */
  external: boolean;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  log: (line: string) => void;
}): Promise<string> {
  const safe = redact(opts.url);
  opts.log(`cloning ${safe} (branch ${opts.branch})`);
  const policy = opts.external ? ["-c", "http.followRedirects=false", "-c", "protocol.allow=never", "-c", "protocol.https.allow=always"] : ["-c", "protocol.file.allow=always"];
  await git(["-c", "core.hooksPath=/dev/null", "-c", "submodule.recurse=false", ...policy, "clone", "--depth", "1", "--single-branch", "--branch", opts.branch, "--no-tags", "--", opts.url, opts.dest], opts);
  const size = await directorySize(opts.dest);
  if (size > opts.maxBytes) throw new CloneError(`The repository is ${Math.ceil(size / 1048576)} MB, over the ${Math.floor(opts.maxBytes / 1048576)} MB limit for a deploy.`);
  // The clone URL may carry a token: keep it out of the checkout the app can read.
  await git(["-C", opts.dest, "remote", "remove", "origin"], opts);
  const commit = (await git(["-C", opts.dest, "rev-parse", "HEAD"], opts)).trim();
  opts.log(`checked out ${commit}`);
  return commit;
}

function git(args: string[], opts: { timeoutMs: number; signal: AbortSignal; log: (line: string) => void }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent", GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", GIT_ASKPASS: "/bin/false" },
      signal: opts.signal,
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(opts.signal.aborted ? e : new CloneError(`git could not run: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const message = redact(err.trim());
      if (message) opts.log(message);
      if (code === 0) return resolve(out);
      if (opts.signal.aborted) return reject(new CloneError("cancelled"));
      if (signal === "SIGKILL") return reject(new CloneError(`git clone took longer than ${opts.timeoutMs / 1000} s.`));
      reject(new CloneError(`git clone failed: ${lastLine(message) || `exit code ${code}`}`));
    });
  });
}

/** Strips user:password@ from URLs so tokens never reach logs. */
export function redact(text: string): string {
  return text.replace(/(\w+:\/\/)[^/@\s]+@/g, "$1***@");
}

function lastLine(text: string): string {
  return text.split("\n").filter(Boolean).pop() ?? "";
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}
