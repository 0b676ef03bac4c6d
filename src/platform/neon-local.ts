// Points @neondatabase/serverless at the local Neon proxy (local/neon-proxy.ts)
// instead of Neon's endpoints. Runs inside the Worker: no Node APIs here.
import { neonConfig } from "@neondatabase/serverless";

/**
 * Sends both driver transports to the local proxy at `proxy` ("127.0.0.1:54321"):
 * neon() posts to http://<proxy>/sql, Pool and Client tunnel over ws://<proxy>/v2.
 * Connection strings then name the local server, e.g.
 * postgresql://user:pass@127.0.0.1:54320/dbname; any sslmode in them is ignored,
 * because the local server speaks plain TCP behind the proxy.
 */
export function useLocalNeonProxy(proxy: string): void {
  neonConfig.wsProxy = (host, port) => `${proxy}/v2?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  // No TLS to Postgres: the driver would otherwise honour sslmode=require.
  neonConfig.forceDisablePgSSL = true;
  neonConfig.pipelineTLS = false;
  // Pipelining sends the password before the server asks for it, which only
  // works with cleartext auth; the local server uses SCRAM.
  neonConfig.pipelineConnect = false;
  neonConfig.fetchEndpoint = `http://${proxy}/sql`;
  neonConfig.poolQueryViaFetch = false;
}
