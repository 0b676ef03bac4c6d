import { neon, Client, type NeonQueryFunction } from "@neondatabase/serverless";
import type { EnvVars } from "../env.ts";
import { ApiError } from "../errors.ts";
import { useLocalNeonProxy } from "./neon-local.ts";

/**
 * Access to Postgres through @neondatabase/serverless, the production code path.
 * Locally the same driver is pointed at the Neon protocol proxy (local/neon-proxy.ts).
 */

let proxyConfigured = "";

function configureDriver(config: EnvVars): void {
  if (config.NEON_LOCAL_PROXY && proxyConfigured !== config.NEON_LOCAL_PROXY) {
    useLocalNeonProxy(config.NEON_LOCAL_PROXY);
    proxyConfigured = config.NEON_LOCAL_PROXY;
  }
}

export type Sql = NeonQueryFunction<false, false>;

/** The control-plane database over Neon's SQL-over-HTTP protocol (one round trip a query). */
export function controlPlane(config: EnvVars): Sql {
  configureDriver(config);
  return neon(config.DATABASE_URL);
}

/** Any database (a project's own, say) over SQL-over-HTTP: one round trip a query, no session. */
export function databaseOverHttp(config: EnvVars, connectionString: string): Sql {
  configureDriver(config);
  return neon(connectionString);
}

/**
 * A session over Neon's WebSocket protocol, for what HTTP cannot do: several statements
 * in one query, session settings, DDL outside a transaction. Always closed by `fn`'s end.
 */
export async function withSession<T>(config: EnvVars, connectionString: string, fn: (client: Client) => Promise<T>): Promise<T> {
  configureDriver(config);
  const client = new Client(connectionString);
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (cause) {
    throw new ApiError(503, "The database is unavailable right now; retry in a few seconds.", { code: "database_unavailable", cause });
  }
  try {
    return await fn(client);
  } finally {
    client.end().catch(() => {});
  }
}

/** Postgres' unique-violation code, for turning a race into a 409. */
export const UNIQUE_VIOLATION = "23505";

export function pgCode(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}
