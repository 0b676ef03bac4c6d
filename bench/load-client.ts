// One measurement, run as its own Node process so its peak RSS is the client's alone.
// Reads a LoadJob as JSON on stdin, warms up, measures, and prints a ClientReport as
// JSON on stdout.
import pg from "pg";
import { runClosedLoop, type LoadResult } from "./load.ts";

export type PgTarget = { host: string; port: number; user: string; password: string; database: string };
export type LoadJob = { warmup: number; requests: number; concurrency: number } & (
  | { target: "worker"; url: string; apiKey: string }
  /** GET /health: the Worker answering without touching a database. */
  | { target: "worker-health"; url: string }
  /** One pooled connection per caller, opened during the warm-up. */
  | { target: "direct"; pg: PgTarget }
  /** A new connection (and SCRAM login) for every query, as the Worker makes. */
  | { target: "direct-connect"; pg: PgTarget }
);
export type ClientReport = LoadResult & { clientPeakRssBytes: number };

const QUERY = "select 1";
/** Only to keep a hung request from hanging the bench; never a pass/fail threshold. */
const REQUEST_TIMEOUT_MS = 30_000;

const job = JSON.parse(await readStdin()) as LoadJob;
const { send, close } = sender(job);
try {
  await runClosedLoop(send, { requests: job.warmup, concurrency: job.concurrency });
  const result = await runClosedLoop(send, { requests: job.requests, concurrency: job.concurrency });
  const report: ClientReport = { ...result, clientPeakRssBytes: process.resourceUsage().maxRSS * 1024 };
  process.stdout.write(JSON.stringify(report));
} finally {
  await close();
}

function sender(job: LoadJob): { send: () => Promise<void>; close: () => Promise<void> } {
  if (job.target === "worker") {
    const body = JSON.stringify({ query: QUERY });
    const headers = { "Content-Type": "application/json", "X-API-Key": job.apiKey };
    return {
      send: async () => {
        const res = await fetch(job.url, { method: "POST", headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`POST ${job.url}: ${res.status} ${text}`);
        expectOne(JSON.parse(text).rows);
      },
      close: async () => {},
    };
  }
  if (job.target === "worker-health") {
    return {
      send: async () => {
        const res = await fetch(job.url, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`GET ${job.url}: ${res.status} ${text}`);
      },
      close: async () => {},
    };
  }
  const config = { ...job.pg, query_timeout: REQUEST_TIMEOUT_MS, connectionTimeoutMillis: REQUEST_TIMEOUT_MS };
  if (job.target === "direct") {
    const pool = new pg.Pool({ ...config, max: job.concurrency });
    return { send: async () => expectOne((await pool.query(QUERY)).rows), close: () => pool.end() };
  }
  return {
    send: async () => {
      const client = new pg.Client(config);
      await client.connect();
      try {
        expectOne((await client.query(QUERY)).rows);
      } finally {
        // Like the Worker, answer without waiting for the connection to close.
        client.end().catch(() => {});
      }
    },
    close: async () => {},
  };
}

function expectOne(rows: Record<string, unknown>[]): void {
  if (rows?.length !== 1 || Number(Object.values(rows[0]!)[0]) !== 1) throw new Error(`unexpected result of ${QUERY}: ${JSON.stringify(rows)}`);
}

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
