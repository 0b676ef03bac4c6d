// Neon's SQL-over-HTTP protocol, as @neondatabase/serverless 1.x speaks it:
//   POST /sql, header Neon-Connection-String, body {query, params} or
//   {queries: [{query, params}, ...]} (one transaction), answered with
//   {fields, rows, command, rowCount, rowAsArray} or {results: [...]}.
// Errors: HTTP 400 with {message, code, detail, hint, position, ...}; the
// driver copies exactly those fields onto the NeonDbError it throws.
import type { IncomingMessage, ServerResponse } from "node:http";
import pg from "pg";

export type SqlOverHttpOptions = {
  isAllowedHost: (host: string) => boolean;
  log: (line: string) => void;
};

type QueryData = { query: string; params?: unknown[] };
type Format = { arrayMode: boolean; rawText: boolean };

// Field names the driver reads off an error body (its `hi` list in index.mjs).
const ERROR_FIELDS = ["severity", "code", "detail", "hint", "position", "internalPosition", "internalQuery",
  "where", "schema", "table", "column", "dataType", "constraint", "file", "line", "routine"] as const;

const ISOLATION: Record<string, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

// Values pass through as Postgres text; the driver parses them with its own type parsers.
const RAW_TEXT_TYPES = { getTypeParser: () => (value: string) => value };
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const POOL_IDLE_MS = 60_000;

class RequestError extends Error {
  status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Returns the `/sql` request handler and a close() that ends every pooled connection. */
export function createSqlOverHttp(opts: SqlOverHttpOptions) {
  // One small pool per (user, password, host, port, database); ended once idle.
  const pools = new Map<string, { pool: pg.Pool; lastUsed: number }>();
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [key, entry] of pools) {
      if (entry.pool.totalCount === 0 && now - entry.lastUsed > POOL_IDLE_MS) {
        pools.delete(key);
        void entry.pool.end().catch(() => {});
      }
    }
  }, POOL_IDLE_MS / 2);
  sweeper.unref();

  function poolFor(connectionString: string | undefined): pg.Pool {
    if (!connectionString) throw new RequestError(400, "missing Neon-Connection-String header");
    let url: URL;
    try {
      url = new URL(connectionString);
    } catch {
      throw new RequestError(400, "Neon-Connection-String is not a valid URL");
    }
    if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
      throw new RequestError(400, "Neon-Connection-String must be a postgres:// or postgresql:// URL");
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (!opts.isAllowedHost(host)) throw new RequestError(400, `host ${host} is not allowed; only loopback targets are`);
    // sslmode, channel_binding and the like are ignored: the local server speaks plain TCP.
    const config = {
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      host,
      port: url.port ? Number(url.port) : 5432,
      database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username),
      application_name: url.searchParams.get("application_name") ?? undefined,
    };
    const key = JSON.stringify([config.user, config.password, config.host, config.port, config.database]);
    let entry = pools.get(key);
    if (!entry) {
      const pool = new pg.Pool({ ...config, max: 5, idleTimeoutMillis: 10_000, types: RAW_TEXT_TYPES });
      // A pooled idle client that dies (server restart, pg_terminate_backend) must not crash the proxy.
      pool.on("error", (err) => opts.log(`http: idle connection error: ${err.message}`));
      entry = { pool, lastUsed: Date.now() };
      pools.set(key, entry);
    }
    entry.lastUsed = Date.now();
    return entry.pool;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (req.method !== "POST") throw new RequestError(405, "use POST /sql");
      const body = parseBody(await readBody(req));
      const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
      const format: Format = {
        arrayMode: header("Neon-Array-Mode") === "true",
        rawText: header("Neon-Raw-Text-Output") === "true",
      };
      const pool = poolFor(header("Neon-Connection-String"));
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        if ("queries" in body) {
          const begin = beginStatement(header("Neon-Batch-Isolation-Level"), header("Neon-Batch-Read-Only"), header("Neon-Batch-Deferrable"));
          await client.query(begin);
          const results = [];
          try {
            for (const q of body.queries) results.push(await runQuery(client, q, format));
            await client.query("COMMIT");
          } catch (err) {
            await client.query("ROLLBACK").catch((e: Error) => (broken = e));
            throw err;
          }
          reply(res, 200, { results });
        } else {
          reply(res, 200, await runQuery(client, body, format));
        }
      } catch (err) {
        if (!isDatabaseError(err)) broken = err as Error; // connection trouble: do not reuse this client
        throw err;
      } finally {
        // A connection left inside a transaction (a lone `BEGIN`) must not serve the next request.
        if (!broken && client.getTransactionStatus() !== "I") broken = new Error("connection left mid-transaction");
        client.release(broken);
      }
    } catch (err) {
      replyError(res, err, opts.log);
    }
  }

  async function close(): Promise<void> {
    clearInterval(sweeper);
    const all = [...pools.values()];
    pools.clear();
    await Promise.all(all.map((e) => e.pool.end().catch(() => {})));
  }

  return { handle, close };
}

async function runQuery(client: pg.PoolClient, q: QueryData, format: Format) {
  if (typeof q?.query !== "string") throw new RequestError(400, "each query needs a string `query`");
  const params = Array.isArray(q.params) ? q.params : [];
  // Extended protocol always, as Neon does: one statement per query, even without params.
  const result = await client.query({
    text: q.query,
    values: params,
    rowMode: format.arrayMode ? "array" : undefined,
    queryMode: "extended",
  } as pg.QueryConfig);
  const fields = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: f.format,
  }));
  const convert = (v: unknown, i: number) => (format.rawText ? v : textToJson(v as string | null, fields[i]!.dataTypeID));
  const rows = format.arrayMode
    ? (result.rows as unknown[][]).map((row) => row.map(convert))
    : (result.rows as Record<string, unknown>[]).map((row) => Object.fromEntries(fields.map((f, i) => [f.name, convert(row[f.name], i)])));
  return { fields, rows, command: result.command, rowCount: result.rowCount, rowAsArray: format.arrayMode };
}

/** Neon's non-raw output (Neon-Raw-Text-Output absent): bools, small ints, floats and JSON become JSON values. */
function textToJson(value: string | null, typeId: number): unknown {
  if (value === null) return null;
  switch (typeId) {
    case 16: return value === "t";
    case 21: case 23: return Number(value);
    case 700: case 701: { const n = Number(value); return Number.isFinite(n) ? n : value; }
    case 114: case 3802: return JSON.parse(value);
    default: return value;
  }
}

function beginStatement(isolation?: string, readOnly?: string, deferrable?: string): string {
  let sql = "BEGIN";
  if (isolation !== undefined) {
    const level = ISOLATION[isolation];
    if (!level) throw new RequestError(400, `unknown Neon-Batch-Isolation-Level ${isolation}`);
    sql += ` ISOLATION LEVEL ${level}`;
  }
  if (readOnly !== undefined) sql += readOnly === "true" ? " READ ONLY" : " READ WRITE";
  if (deferrable !== undefined) sql += deferrable === "true" ? " DEFERRABLE" : " NOT DEFERRABLE";
  return sql;
}

function parseBody(text: string): QueryData | { queries: QueryData[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestError(400, "request body is not valid JSON");
  }
  if (body && typeof body === "object" && Array.isArray((body as { queries?: unknown }).queries)) return body as { queries: QueryData[] };
  if (body && typeof body === "object" && typeof (body as QueryData).query === "string") return body as QueryData;
  throw new RequestError(400, "expected {query, params} or {queries: [...]}");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RequestError(413, "request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function isDatabaseError(err: unknown): err is pg.DatabaseError {
  return err instanceof pg.DatabaseError;
}

function replyError(res: ServerResponse, err: unknown, log: (line: string) => void): void {
  if (isDatabaseError(err)) {
    // Postgres' own error (including failed authentication): the driver turns a 400 into NeonDbError.
    const body: Record<string, unknown> = { message: err.message };
    for (const f of ERROR_FIELDS) if (err[f] !== undefined) body[f] = err[f];
    return reply(res, 400, body);
  }
  if (err instanceof RequestError) return reply(res, err.status, { message: err.message });
  const message = err instanceof Error ? err.message : String(err);
  log(`http: ${message}`);
  reply(res, 502, { message: `could not reach the database: ${message}` });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}
