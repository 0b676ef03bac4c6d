import type { EnvVars } from "../env.ts";
import { ApiError } from "../errors.ts";
import { databaseOverHttp, pgCode } from "../platform/db.ts";
import { projectDatabase, type Project } from "../projects/projects.ts";
import { ensureAuthTables, forgetAuthTables } from "./auth-schema.ts";

/** Queries on a project's auth tables, which exist by the time the first one runs. */
export type AuthDb = {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
};

const UNDEFINED_TABLE = "42P01";

/**
 * The project's database for auth queries, over SQL-over-HTTP. Makes the auth tables on
 * first use; if the project dropped them since, makes them again and retries once.
 */
export async function authDatabase(config: EnvVars, project: Project): Promise<AuthDb> {
  await ensureAuthTables(config, project);
  const db = await projectDatabase(config, project);
  const sql = databaseOverHttp(config, db.connection_string);
  const run = async <T>(text: string, params: unknown[]) => {
    try {
      return (await sql.query(text, params)) as T[];
    } catch (err) {
      if (pgCode(err) === UNDEFINED_TABLE) {
        forgetAuthTables(project.id);
        await ensureAuthTables(config, project, true);
        return (await sql.query(text, params)) as T[];
      }
      throw err;
    }
  };
  return {
    async query<T>(text: string, params: unknown[] = []) {
      try {
        return await run<T>(text, params);
      } catch (err) {
        if (err instanceof ApiError || pgCode(err)) throw err;
        throw new ApiError(503, "The project's database is unavailable right now; retry in a few seconds.", { code: "database_unavailable", cause: err });
      }
    },
  };
}
