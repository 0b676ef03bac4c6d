import { execFileSync } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { newAccount, newProject, superuserUrl, uniqueSlug } from "./client.ts";

describe("projects", () => {
  it("creates a project with its own database, per the interface's fields", async () => {
    const account = await newAccount();
    const slug = uniqueSlug("shop");
    const reply = await account.api("POST", "/projects", { name: "Shop", slug });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ name: "Shop", slug, plan: "free", status: "active" });
    expect(reply.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.body.database).toMatchObject({ name: slug.replace(/-/g, "_"), host: "127.0.0.1", user: `${slug.replace(/-/g, "_")}_owner` });
    expect(Number.isInteger(reply.body.database.port)).toBe(true);
    expect(reply.body.database.password.length).toBeGreaterThanOrEqual(24);
    expect(reply.body.git_repo_url).toMatch(new RegExp(`/git/${slug}\\.git$`));
  });

  it("generates a unique slug from the name when none is given", async () => {
    const account = await newAccount();
    const first = await account.api("POST", "/projects", { name: "Hello World App!" });
    const second = await account.api("POST", "/projects", { name: "Hello World App!" });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.body.slug).toMatch(/^hello-world-app(-[a-z0-9]{6})?$/);
    expect(second.body.slug).not.toBe(first.body.slug);
    expect(second.body.slug).toMatch(/^hello-world-app-[a-z0-9]{6}$/);
  });

  it.each([
    ["too short", "ab"],
    ["too long", "a".repeat(33)],
    ["uppercase", "MyApp"],
    ["consecutive hyphens", "my--app"],
    ["leading hyphen", "-app"],
    ["underscore", "my_app"],
    ["reserved", "projects"],
  ])("rejects an invalid slug (%s) with 400", async (_case, slug) => {
    const account = await newAccount();
    const reply = await account.api("POST", "/projects", { name: "x", slug });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/slug/);
    expect((await account.api("GET", "/projects")).body.projects).toEqual([]);
  });

  it("refuses a taken slug with 409, also for another account", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const project = await newProject(owner);
    const reply = await other.api("POST", "/projects", { name: "x", slug: project.slug });
    expect(reply.status).toBe(409);
    expect(reply.body.detail).toMatch(/taken/);
  });

  it("lists the caller's projects only, without database passwords", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const a = await newProject(owner, "A");
    await newProject(other, "B");
    const list = await owner.api("GET", "/projects");
    expect(list.status).toBe(200);
    expect(list.body.projects.map((p: any) => p.slug)).toEqual([a.slug]);
    expect(list.body.projects[0].database).not.toHaveProperty("password");
    expect(JSON.stringify(list.body)).not.toContain(a.database.password);
  });

  it("shows details with plan, status, dates and which extensions exist", async () => {
    const account = await newAccount();
    const project = await newProject(account);
    const info = await account.api("GET", `/${project.slug}/info`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ slug: project.slug, plan: "free", status: "active" });
    expect(Date.parse(info.body.created_at)).not.toBeNaN();
    expect(info.body.extensions.installed).toEqual(expect.arrayContaining(["uuid-ossp", "pgcrypto", "pg_stat_statements"]));
    // This machine's PostgreSQL 17 has no pgvector; the project says so instead of pretending.
    expect([...info.body.extensions.installed, ...info.body.extensions.unavailable].sort()).toEqual(["pg_stat_statements", "pgcrypto", "uuid-ossp", "vector"]);
    expect(info.body.limits.database_bytes).toBe(2 * 1024 ** 3);
  });

  it("gives credentials whose connection string works with psql as printed", async () => {
    const account = await newAccount();
    const project = await newProject(account);
    const creds = await account.api("GET", `/${project.slug}/credentials`);
    expect(creds.status).toBe(200);
    expect(creds.body).toMatchObject({ database: project.database.name, user: project.database.user, password: project.database.password });
    const out = execFileSync("psql", [creds.body.connection_string, "-Atc", "select current_user || ' ' || current_database()"], { encoding: "utf8" });
    expect(out.trim()).toBe(`${project.database.user} ${project.database.name}`);
  });

  it("hides another account's project behind a 404 with none of its data", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const project = await newProject(owner, "Private Name");
    for (const path of [`/${project.slug}/info`, `/${project.slug}/credentials`, `/${project.slug}/database/usage`]) {
      const reply = await other.api("GET", path);
      expect(reply.status).toBe(404);
      const text = JSON.stringify(reply.body);
      expect(text).not.toContain(project.id);
      expect(text).not.toContain("Private Name");
      expect(text).not.toContain(project.database.password);
    }
    const sqlReply = await other.api("POST", `/${project.slug}/sql`, { query: "select 1" });
    expect(sqlReply.status).toBe(404);
  });

  it("refuses projects beyond the plan's count with 402", async () => {
    const account = await newAccount();
    for (let i = 0; i < 3; i++) await newProject(account);
    const reply = await account.api("POST", "/projects", { name: "one too many" });
    expect(reply.status).toBe(402);
    expect(reply.body.detail).toMatch(/free plan allows 3 projects/);
  });

  it("leaves nothing behind when provisioning fails half-way", async () => {
    const account = await newAccount();
    const slug = uniqueSlug("half");
    const dbName = slug.replace(/-/g, "_");
    const admin = new pg.Client({ connectionString: superuserUrl });
    await admin.connect();
    try {
      // A database of the same name already exists, so CREATE DATABASE fails after CREATE ROLE.
      await admin.query(`create database "${dbName}"`);
      const reply = await account.api("POST", "/projects", { name: "Half", slug });
      expect(reply.status).toBe(409);
      expect((await account.api("GET", "/projects")).body.projects).toEqual([]);
      const role = await admin.query(`select 1 from pg_roles where rolname = $1`, [`${dbName}_owner`]);
      expect(role.rowCount).toBe(0);
      // The database that was there before is not ours to drop.
      const db = await admin.query(`select 1 from pg_database where datname = $1`, [dbName]);
      expect(db.rowCount).toBe(1);
    } finally {
      await admin.query(`drop database if exists "${dbName}"`);
      await admin.end();
    }
  });
});
