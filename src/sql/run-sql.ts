import type { Client, QueryResult } from "@neondatabase/serverless";
import type { EnvVars } from "../env.ts";
import { ApiError, badRequest, planLimit } from "../errors.ts";
import { withSession } from "../platform/db.ts";
import { projectDatabase, type Project } from "../projects/projects.ts";
import { databaseUsage } from "./database-size.ts";
import { SQL_LIMITS } from "./limits.ts";

export type SqlResult = {
  rows: Record<string, unknown>[];
  row_count: number;
  columns: string[];
  command: string;
  /** Present and true when rows were cut at the row or byte cap. */
  truncated?: boolean;
};

const READ_ONLY_SQL_TRANSACTION = "25006";
const QUERY_CANCELED = "57014";

/** Statements that free space, allowed alone while the database is over its limit. */
const FREEING_STATEMENT = /^\s*(delete|drop|truncate|vacuum)\b[^;]*;?\s*$/i;
/** Ways to switch a read-only session back to read-write, refused while over the limit. */
const READ_WRITE_SWITCH = /transaction_read_only|read\s+write|session\s+characteristics/i;

/**
 * Runs the caller's SQL as the project's own role on its own database. With params the
 * query is one statement ($1…); without, it may hold several (the last one's result is
 * returned). Over the plan's database limit the session is read-only, so Postgres itself
 * decides what is a write, and a write is answered with 402.
 */
export async function runProjectSql(config: EnvVars, project: Project, query: string, params?: unknown[]): Promise<SqlResult> {
  const db = await projectDatabase(config, project);
  return withSession(config, db.connection_string, async (client) => {
    await client.query(`set statement_timeout = ${SQL_LIMITS.statementTimeoutMs}`);
    const usage = await databaseUsage(config, project, client);
    const overLimit = usage.size_bytes > usage.limit_bytes;
    if (overLimit && !FREEING_STATEMENT.test(query)) {
      if (READ_WRITE_SWITCH.test(query)) throw overLimitError(usage.size_bytes, usage.limit_bytes);
      await client.query(`set default_transaction_read_only = on`);
    }
    let result: QueryResult | QueryResult[];
    try {
      result = params === undefined ? await client.query(query) : await client.query(query, params);
    } catch (err) {
      throw sqlError(err, usage.size_bytes, usage.limit_bytes);
    }
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    return shapeResult(last);
  });
}

function overLimitError(size: number, limit: number): ApiError {
  return planLimit(
    `The database is over its plan limit (${size} of ${limit} bytes): reads still work, writes are refused. ` +
      `Free space with DELETE, TRUNCATE or DROP, or upgrade the plan.`,
  );
}

function sqlError(err: unknown, size: number, limit: number): ApiError {
  const e = err as { code?: string; message?: string; position?: string; detail?: string; hint?: string };
  if (e.code === READ_ONLY_SQL_TRANSACTION) return overLimitError(size, limit);
  if (e.code === QUERY_CANCELED) return badRequest(`The statement ran longer than ${SQL_LIMITS.statementTimeoutMs / 1000} s and was cancelled. Add an index or narrow the query.`, "sql_timeout");
  if (e.code) {
    const extra = [e.detail && `Detail: ${e.detail}`, e.hint && `Hint: ${e.hint}`, e.position && `At character ${e.position}.`].filter(Boolean).join(" ");
    return badRequest(extra ? `${e.message} ${extra}` : String(e.message), "sql_error");
  }
  return new ApiError(503, "The database connection failed while running the query; retry.", { code: "database_unavailable", cause: err });
}

function shapeResult(result: QueryResult | undefined): SqlResult {
  if (!result) return { rows: [], row_count: 0, columns: [], command: "" };
  const rows = (result.rows ?? []) as Record<string, unknown>[];
  const columns = (result.fields ?? []).map((f) => f.name);
  let kept = rows.length;
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    bytes += JSON.stringify(rows[i]).length;
    if (i >= SQL_LIMITS.maxRows || bytes > SQL_LIMITS.maxResultBytes) {
      kept = i;
      break;
    }
  }
  const out: SqlResult = {
    rows: kept < rows.length ? rows.slice(0, kept) : rows,
    row_count: result.rowCount ?? rows.length,
    columns,
    command: result.command ?? "",
  };
  if (kept < rows.length) out.truncated = true;
  return out;
}

/** Fresh usage of the project's database, for GET /database/usage. */
export async function projectDatabaseUsage(config: EnvVars, project: Project) {
  const db = await projectDatabase(config, project);
  return withSession(config, db.connection_string, (client: Client) => databaseUsage(config, project, client, true));
}
