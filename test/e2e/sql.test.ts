import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, newAccount, newProject, sql, type TestAccount } from "./client.ts";

describe("SQL on the project's database", () => {
  let account: TestAccount;
  let slug: string;
  beforeAll(async () => {
    account = await newAccount();
    slug = (await newProject(account)).slug;
  });

  it("runs a migration script of several statements and returns the last result", async () => {
    const reply = await sql(account, slug, `
      create table notes (id serial primary key, body text not null, tags jsonb default '{}');
      insert into notes (body) values ('first'), ('second');
      select id, body from notes order by id;`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ rows: [{ id: 1, body: "first" }, { id: 2, body: "second" }], row_count: 2, columns: ["id", "body"], command: "SELECT" });
  });

  it("binds $1, $2 from params and reports the statement kind", async () => {
    const insert = await sql(account, slug, "insert into notes (body, tags) values ($1, $2) returning id, tags", ["third", { role: "admin" }]);
    expect(insert.status).toBe(200);
    expect(insert.body.command).toBe("INSERT");
    expect(insert.body.row_count).toBe(1);
    expect(insert.body.rows[0].tags).toEqual({ role: "admin" });
    const update = await sql(account, slug, "update notes set body = upper(body) where id <= $1", [2]);
    expect(update.body).toMatchObject({ command: "UPDATE", row_count: 2, rows: [], columns: [] });
    const filtered = await sql(account, slug, "select body from notes where tags->>'role' = $1", ["admin"]);
    expect(filtered.body.rows).toEqual([{ body: "third" }]);
  });

  it("answers an SQL error with 400 and Postgres' own message", async () => {
    const reply = await sql(account, slug, "select * from no_such_table");
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/relation "no_such_table" does not exist/);
    const wrongParams = await sql(account, slug, "select $1::int", ["not a number"]);
    expect(wrongParams.status).toBe(400);
    expect(wrongParams.body.detail).toMatch(/invalid input syntax for type integer/);
  });

  it("validates the body: missing query, wrong types, malformed JSON", async () => {
    expect((await account.api("POST", `/${slug}/sql`, {})).status).toBe(400);
    const wrongType = await account.api("POST", `/${slug}/sql`, { query: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.detail).toMatch(/query/);
    expect((await account.api("POST", `/${slug}/sql`, { query: "select 1", params: "x" })).status).toBe(400);
  });

  it("cuts very large results and says so", async () => {
    const reply = await sql(account, slug, "select g from generate_series(1, 6000) g");
    expect(reply.status).toBe(200);
    expect(reply.body.rows.length).toBe(5000);
    expect(reply.body.row_count).toBe(6000);
    expect(reply.body.truncated).toBe(true);
  });

  it("creates the promised extensions' functions", async () => {
    const reply = await sql(account, slug, "select uuid_generate_v4() is not null as a, gen_random_uuid() is not null as b, digest('x', 'sha256') is not null as c");
    expect(reply.body.rows).toEqual([{ a: true, b: true, c: true }]);
  });

  it("counts queries against the plan's hourly limit and says so in headers", async () => {
    const first = await sql(account, slug, "select 1");
    const second = await sql(account, slug, "select 1");
    expect(first.headers.get("ratelimit-limit")).toBe("1000");
    expect(Number(second.headers.get("ratelimit-remaining"))).toBe(Number(first.headers.get("ratelimit-remaining")) - 1);
    expect(Number(first.headers.get("ratelimit-reset"))).toBeLessThanOrEqual(3600);
  });

  it("reports usage against the plan's limit", async () => {
    const reply = await account.api("GET", `/${slug}/database/usage`);
    expect(reply.status).toBe(200);
    expect(reply.body.plan).toBe("free");
    expect(reply.body.limit_bytes).toBe(2 * 1024 ** 3);
    expect(reply.body.size_bytes).toBeGreaterThan(1_000_000);
    expect(reply.body.usage_percent).toBeCloseTo((reply.body.size_bytes / reply.body.limit_bytes) * 100, 1);
  });
});

describe("tenant isolation of project databases", () => {
  it("runs as a role that is not a superuser and cannot create roles or databases", async () => {
    const account = await newAccount();
    const { slug, database } = await newProject(account);
    const me = await sql(account, slug, "select current_user as u, current_setting('is_superuser') as su");
    expect(me.body.rows).toEqual([{ u: database.user, su: "off" }]);
    expect((await sql(account, slug, "create role intruder")).status).toBe(400);
    expect((await sql(account, slug, "create database intruder")).status).toBe(400);
  });

  it("cannot read server files", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    const read = await sql(account, slug, "select pg_read_file('/etc/passwd')");
    expect(read.status).toBe(400);
    expect(read.body.detail).toMatch(/permission denied/);
    await sql(account, slug, "create table t (line text)");
    const copy = await sql(account, slug, "copy t from '/etc/passwd'");
    expect(copy.status).toBe(400);
    expect(copy.body.detail).toMatch(/permission denied|must be superuser|pg_read_server_files/);
  });

  it("cannot reach another project's database or tables", async () => {
    const owner = await newAccount();
    const a = await newProject(owner);
    const b = await newProject(owner);
    await sql(owner, b.slug, "create table secrets (v text); insert into secrets values ('b-only')");
    expect((await sql(owner, a.slug, "select * from secrets")).status).toBe(400);

    // With project A's own credentials, straight to the server: B's database is closed to it.
    const client = new pg.Client({ host: a.database.host, port: a.database.port, user: a.database.user, password: a.database.password, database: b.database.name });
    await expect(client.connect()).rejects.toThrow(/permission denied for database/);
    await client.end().catch(() => {});
    const cp = new pg.Client({ host: a.database.host, port: a.database.port, user: a.database.user, password: a.database.password, database: "slipway" });
    await expect(cp.connect()).rejects.toThrow(/permission denied for database/);
    await cp.end().catch(() => {});
  });
});

describe("the database size limit", () => {
  it("refuses writes with 402 while over the limit, keeps reads, and allows freeing space", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    await sql(account, slug, "create table items (v text); insert into items values ('kept')");

    expect((await admin("PATCH", `/projects/${slug}`, { database_limit_bytes: 1_000_000 })).status).toBe(200);

    const write = await sql(account, slug, "insert into items values ('new')");
    expect(write.status).toBe(402);
    expect(write.body.detail).toMatch(/over its plan limit/);
    expect((await sql(account, slug, "create table more (v text)")).status).toBe(402);
    expect((await sql(account, slug, "set default_transaction_read_only = off; insert into items values ('sneaky')")).status).toBe(402);
    expect((await sql(account, slug, "begin read write; insert into items values ('sneaky'); commit")).status).toBe(402);

    const read = await sql(account, slug, "select v from items");
    expect(read.status).toBe(200);
    expect(read.body.rows).toEqual([{ v: "kept" }]);
    const usage = await account.api("GET", `/${slug}/database/usage`);
    expect(usage.body.limit_bytes).toBe(1_000_000);
    expect(usage.body.usage_percent).toBeGreaterThan(100);

    expect((await sql(account, slug, "delete from items where v = 'nothing'")).status).toBe(200);

    await admin("PATCH", `/projects/${slug}`, { database_limit_bytes: null });
    expect((await sql(account, slug, "insert into items values ('new')")).status).toBe(200);
  });
});
