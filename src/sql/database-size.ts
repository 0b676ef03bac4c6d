import type { Client } from "@neondatabase/serverless";
import type { EnvVars } from "../env.ts";
import { databaseLimitBytes, recordDatabaseSize, type Project } from "../projects/projects.ts";

export type DatabaseUsage = { size_bytes: number; limit_bytes: number; usage_percent: number; plan: string };

export async function measureDatabaseSize(client: Client): Promise<number> {
  const { rows } = await client.query(`select pg_database_size(current_database())::bigint as size`);
  return Number(rows[0].size);
}

/**
 * The project's size against its limit. A size measured less than DB_SIZE_TTL_SECONDS
 * ago is trusted, so the check costs no query on most requests; otherwise it is measured
 * on the session already open and recorded.
 */
export async function databaseUsage(config: EnvVars, project: Project, client: Client, fresh = false): Promise<DatabaseUsage> {
  const measuredAt = project.db_size_measured_at ? new Date(project.db_size_measured_at).getTime() : 0;
  let size = project.db_size_bytes === null ? null : Number(project.db_size_bytes);
  if (fresh || size === null || Date.now() - measuredAt > config.DB_SIZE_TTL_SECONDS * 1000) {
    size = await measureDatabaseSize(client);
    await recordDatabaseSize(config, project.id, size);
  }
  const limit = databaseLimitBytes(project);
  return { size_bytes: size, limit_bytes: limit, usage_percent: Math.round((size / limit) * 10_000) / 100, plan: project.plan };
}
