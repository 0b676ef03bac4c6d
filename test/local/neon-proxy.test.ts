// The local Postgres and Neon proxy, driven by the real @neondatabase/serverless
// driver exactly as the Worker configures it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { resolve } from "node:path";
import { Client, NeonDbError, Pool, neon } from "@neondatabase/serverless";
import { startPostgres, type RunningPostgres } from "../../local/postgres.ts";
import { startNeonProxy, type RunningNeonProxy } from "../../local/neon-proxy.ts";
import { useLocalNeonProxy } from "../../src/platform/neon-local.ts";

const dataDir = resolve(`.data/test-local-${randomBytes(4).toString("hex")}`);
let pgPort: number;
let postgres: RunningPostgres;
let proxy: RunningNeonProxy;
let appUrl: string;

beforeAll(async () => {
  pgPort = await freePort();
  postgres = await startPostgres({ dataDir, port: pgPort });
  proxy = await startNeonProxy({ port: 0 });
  useLocalNeonProxy(`127.0.0.1:${proxy.port}`);
  const su = neon(postgres.superuserUrl);
  await su`CREATE ROLE app LOGIN PASSWORD 'app-secret'`;
  await su.query("CREATE DATABASE appdb OWNER app");
  // sslmode=require is what Neon hands out; locally it must be harmless.
  appUrl = `postgresql://app:app-secret@127.0.0.1:${pgPort}/appdb?sslmode=require`;
});

afterAll(async () => {
  await proxy?.stop();
  await postgres?.stop();
  await stopOrphanedServer(); // only if the recovery test failed part-way
  await rm(dataDir, { recursive: true, force: true });
});

describe("neon() over SQL-over-HTTP", () => {
  it("passes parameters and parses int, bool, json, timestamp, null and array columns", async () => {
    const sql = neon(appUrl);
    const [row] = await sql`
      SELECT ${41}::int + 1 AS i, ${true}::bool AS b, ${JSON.stringify({ a: [1, "x"] })}::jsonb AS j,
             timestamptz '2024-01-02T03:04:05Z' AS t, NULL::text AS n, ARRAY[1, 2, 3] AS ints,
             ARRAY['a', 'b c', NULL] AS texts, ${"héllo ✓"}::text AS s, 9007199254740993::bigint AS big`;
    expect(row).toEqual({
      i: 42, b: true, j: { a: [1, "x"] }, t: new Date("2024-01-02T03:04:05Z"), n: null,
      ints: [1, 2, 3], texts: ["a", "b c", null], s: "héllo ✓", big: "9007199254740993",
    });
  });

  it("returns full results with field metadata, command and row count", async () => {
    const sql = neon(appUrl, { fullResults: true });
    await sql`CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, body text UNIQUE)`;
    const inserted = await sql`INSERT INTO notes (body) VALUES ('one'), ('two') RETURNING id, body`;
    expect(inserted.command).toBe("INSERT");
    expect(inserted.rowCount).toBe(2);
    expect(inserted.fields.map((f) => [f.name, f.dataTypeID])).toEqual([["id", 23], ["body", 25]]);
    const arrays = await sql.query("SELECT body FROM notes ORDER BY id", [], { arrayMode: true });
    expect(arrays.rows).toEqual([["one"], ["two"]]);
  });

  it("commits a transaction batch and returns one result per query", async () => {
    const sql = neon(appUrl);
    await sql`CREATE TABLE accounts (name text PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0))`;
    const results = await sql.transaction([
      sql`INSERT INTO accounts VALUES ('ann', 10), ('bob', 0)`,
      sql`UPDATE accounts SET balance = balance - 5 WHERE name = 'ann'`,
      sql`SELECT name, balance FROM accounts ORDER BY name`,
    ]);
    expect(results).toHaveLength(3);
    expect(results[2]).toEqual([{ name: "ann", balance: 5 }, { name: "bob", balance: 0 }]);
  });

  it("rolls back every query of a batch when one of them fails", async () => {
    const sql = neon(appUrl);
    await sql`CREATE TABLE ledger (n int)`;
    const failing = sql.transaction([
      sql`INSERT INTO ledger VALUES (1)`,
      sql`INSERT INTO ledger VALUES (${"not a number"})`,
    ]);
    await expect(failing).rejects.toMatchObject({ code: "22P02" });
    expect(await sql`SELECT count(*)::int AS c FROM ledger`).toEqual([{ c: 0 }]);
  });

  it("applies the batch isolation level, read-only and deferrable options", async () => {
    const sql = neon(appUrl);
    const [iso, ro, def] = await sql.transaction(
      [sql`SHOW transaction_isolation`, sql`SHOW transaction_read_only`, sql`SHOW transaction_deferrable`],
      { isolationLevel: "Serializable", readOnly: true, deferrable: true },
    );
    expect([iso, ro, def]).toEqual([[{ transaction_isolation: "serializable" }], [{ transaction_read_only: "on" }], [{ transaction_deferrable: "on" }]]);
    const write = sql.transaction([sql`CREATE TABLE nope (x int)`], { readOnly: true });
    await expect(write).rejects.toMatchObject({ code: "25006" });
  });

  it("hands Postgres' error message, code, detail and position to the caller", async () => {
    const sql = neon(appUrl);
    const missing = await sql`SELECT * FROM no_such_table`.catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NeonDbError);
    expect(missing).toMatchObject({ message: 'relation "no_such_table" does not exist', code: "42P01", position: "15", severity: "ERROR" });

    await sql`CREATE TABLE uniq (v text UNIQUE)`;
    await sql`INSERT INTO uniq VALUES ('x')`;
    const dup = await sql`INSERT INTO uniq VALUES ('x')`.catch((e: unknown) => e);
    expect(dup).toMatchObject({ code: "23505", constraint: "uniq_v_key", table: "uniq", detail: "Key (v)=(x) already exists." });
  });

  it("runs one statement per query, as Neon does", async () => {
    const sql = neon(appUrl);
    await expect(sql.query("SELECT 1; SELECT 2")).rejects.toMatchObject({ code: "42601" });
  });

  it("rejects a wrong password with Postgres' authentication error and keeps serving", async () => {
    const bad = neon(`postgresql://app:wrong@127.0.0.1:${pgPort}/appdb`);
    await expect(bad`SELECT 1`).rejects.toMatchObject({ code: "28P01", message: expect.stringContaining("password authentication failed") });
    expect(await neon(appUrl)`SELECT 1 AS ok`).toEqual([{ ok: 1 }]);
  });

  it("refuses database hosts that are not loopback", async () => {
    const sql = neon(`postgresql://app:app-secret@db.example.com:5432/appdb`);
    await expect(sql`SELECT 1`).rejects.toThrow(/not allowed/);
  });
});

describe("Pool and Client over the WebSocket tunnel", () => {
  it("runs a multi-statement simple query and a parameterised query on a Client", async () => {
    const client = new Client(appUrl);
    await client.connect();
    try {
      const results = await client.query("CREATE TEMP TABLE t (x int); INSERT INTO t VALUES (1), (2); SELECT sum(x)::int AS total FROM t");
      expect(Array.isArray(results)).toBe(true);
      expect((results as unknown as { rows: unknown[] }[])[2]!.rows).toEqual([{ total: 3 }]);
      const { rows } = await client.query("SELECT $1::int * 2 AS doubled, $2::text AS word", [21, "ok"]);
      expect(rows).toEqual([{ doubled: 42, word: "ok" }]);
    } finally {
      await client.end();
    }
  });

  it("serves concurrent queries through a Pool with SCRAM authentication", async () => {
    const pool = new Pool({ connectionString: appUrl, max: 3 });
    try {
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => pool.query("SELECT $1::int AS n, current_user AS who", [n])));
      expect(answers.map((r) => r.rows[0])).toEqual([1, 2, 3, 4, 5].map((n) => ({ n, who: "app" })));
    } finally {
      await pool.end();
    }
  });

  it("rejects a wrong password on a WebSocket connection", async () => {
    const client = new Client(`postgresql://app:wrong@127.0.0.1:${pgPort}/appdb`);
    await expect(client.connect()).rejects.toMatchObject({ code: "28P01" });
  });

  it("refuses to tunnel to a host that is not loopback", async () => {
    const opened = await new Promise<string>((settle) => {
      const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v2?address=10.1.2.3:5432`);
      ws.addEventListener("open", () => { settle("open"); ws.close(); });
      ws.addEventListener("error", () => settle("refused"));
    });
    expect(opened).toBe("refused");
  });
});

describe("the local Postgres server", () => {
  it("lets pg_stat_statements, pgcrypto and uuid-ossp be created", async () => {
    const su = neon(postgres.superuserUrl);
    await su`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
    await su`CREATE EXTENSION IF NOT EXISTS pgcrypto`;
    await su`CREATE EXTENSION IF NOT EXISTS "uuid-ossp"`;
    const [row] = await su`SELECT encode(digest('abc', 'sha256'), 'hex') AS sha, uuid_generate_v4() AS u,
                                  (SELECT count(*) FROM pg_stat_statements) > 0 AS tracked`;
    expect(row).toMatchObject({ sha: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", tracked: true });
    expect(row!.u).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("listens on 127.0.0.1 only and requires a password", async () => {
    const [row] = await neon(postgres.superuserUrl)`SELECT current_setting('listen_addresses') AS listen,
      (SELECT count(*)::int FROM pg_hba_file_rules WHERE auth_method = 'trust') AS trusting`;
    expect(row).toEqual({ listen: "127.0.0.1", trusting: 0 });
  });

  it("keeps its data across a restart without initialising again", async () => {
    await neon(appUrl)`CREATE TABLE survivors (name text)`;
    await neon(appUrl)`INSERT INTO survivors VALUES ('kept')`;
    const urlBefore = postgres.superuserUrl;
    await postgres.stop();
    postgres = await startPostgres({ dataDir, port: pgPort });
    expect(postgres.superuserUrl).toBe(urlBefore);
    expect(await neon(appUrl)`SELECT name FROM survivors`).toEqual([{ name: "kept" }]);
  });

  it("recovers when a killed run left its server and postmaster.pid behind", async () => {
    await postgres.stop();
    // A separate process starts the server, then dies without stopping it.
    const script = `import { startPostgres } from ${JSON.stringify(resolve("local/postgres.ts"))};
      await startPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${pgPort} });
      console.log("ready");`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((ready, fail) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && ready());
      child.on("exit", (code) => fail(new Error(`helper exited early with ${code}`)));
    });
    const exited = new Promise((done) => child.on("exit", done));
    child.kill("SIGKILL");
    await exited;

    postgres = await startPostgres({ dataDir, port: pgPort });
    expect(await neon(appUrl)`SELECT name FROM survivors`).toEqual([{ name: "kept" }]);
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function stopOrphanedServer(): Promise<void> {
  const lock = await readFile(resolve(dataDir, "pgdata/postmaster.pid"), "utf8").catch(() => "");
  const pid = Number.parseInt(lock.split("\n")[0] ?? "", 10);
  if (pid > 0) {
    try {
      process.kill(pid, "SIGINT");
    } catch {
      // already gone
    }
  }
}
