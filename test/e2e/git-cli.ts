import { execFile } from "node:child_process";
import { mkdtemp, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The real git CLI, isolated from the machine's configuration, never prompting. */

export type GitResult = { code: number; stdout: string; stderr: string };

export function git(cwd: string, ...args: string[]): Promise<GitResult> {
  return runGit(undefined, cwd, args);
}

/** git and gitOk speaking the given wire protocol version ("0" or "2"; git's default is 2). */
export function gitFor(protocol: "0" | "2") {
  const g = (cwd: string, ...args: string[]) => runGit(protocol, cwd, args);
  return {
    git: g,
    gitOk: async (cwd: string, ...args: string[]) => ok(await g(cwd, ...args), args),
  };
}

async function runGit(protocol: string | undefined, cwd: string, args: string[]): Promise<GitResult> {
  const home = join(tmpdir(), "slipway-git-home");
  await mkdir(home, { recursive: true });
  try {
    const { stdout, stderr } = await run("git", args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH!,
        HOME: home,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "Tester",
        GIT_AUTHOR_EMAIL: "tester@example.test",
        GIT_COMMITTER_NAME: "Tester",
        GIT_COMMITTER_EMAIL: "tester@example.test",
        GIT_PROTOCOL_FROM_USER: "1",
        ...(protocol ? { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "protocol.version", GIT_CONFIG_VALUE_0: protocol } : {}),
      },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Like git(), but throws with git's output when it fails. */
export async function gitOk(cwd: string, ...args: string[]): Promise<string> {
  return ok(await git(cwd, ...args), args);
}

function ok(r: GitResult, args: string[]): string {
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

export async function tempDir(tag = "git"): Promise<string> {
  return mkdtemp(join(tmpdir(), `slipway-${tag}-`));
}

/** The repository URL with the API key as the Basic password. */
export function authedUrl(gitRepoUrl: string, apiKey: string, user = "git"): string {
  const u = new URL(gitRepoUrl);
  u.username = user;
  u.password = apiKey;
  return u.toString();
}

export async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** Writes files, then commits them all. Returns the new commit id. */
export async function commitFiles(dir: string, message: string, files: Record<string, string | Uint8Array>): Promise<string> {
  await writeFiles(dir, files);
  await gitOk(dir, "add", "-A");
  await gitOk(dir, "commit", "-q", "-m", message);
  return gitOk(dir, "rev-parse", "HEAD");
}
