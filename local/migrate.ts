import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";

const MIGRATIONS_DIR = new URL("../migrations/", import.meta.url).pathname;

/**
 * Applies the numbered migrations in migrations/ that the control-plane database has not
 * seen, each in its own transaction, in file-name order. Returns the names it applied.
 */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query(`select name from schema_migrations`)).rows.map((r) => r.name as string));
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort();
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(join(MIGRATIONS_DIR, file), "utf8");
      await client.query("begin");
      try {
        await client.query(sql);
        await client.query(`insert into schema_migrations (name) values ($1)`, [file]);
        await client.query("commit");
      } catch (err) {
        await client.query("rollback");
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
    return applied;
  } finally {
    await client.end();
  }
}

// `npm run migrate` (DATABASE_URL=postgres://… for production).
if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("Set DATABASE_URL to the control-plane database's connection string.");
    process.exit(2);
  }
  const applied = await migrate(url);
  console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
}
