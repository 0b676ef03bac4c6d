// `npm run dev`: the whole platform on this machine, state under .data/dev.
import { readFile, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { DEV_PORTS, startStack } from "./stack.ts";

const DATA_DIR = ".data/dev";
// Postgres logs every SQL error a user makes; show only what stops it. The Worker's
// request log lines (JSON) and wrangler's own messages pass.
const log = (part: string, line: string) => {
  if (part === "postgres" && !/FATAL|PANIC/.test(line)) return;
  // wrangler cannot fetch Request.cf offline; that warning and its stack are noise here.
  if (part === "worker" && /Request\.cf|workers\.cloudflare\.com|getaddrinfo|^\s+at /.test(line)) return;
  console.log(`[${part}] ${line}`);
};

const stack = await startStack({ dataDir: DATA_DIR, ports: DEV_PORTS, log });
let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nstopping…");
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

const account = await devAccount(stack.apiRoot);
console.log(`
Slipway is running.
  API root        ${stack.apiRoot}
  Project API     ${stack.apiRoot}/v1/project
  API reference   ${stack.apiRoot}/docs  (OpenAPI: ${stack.apiRoot}/openapi.json)
  Dev account     ${account.email} / ${account.password}
  API key         ${account.apiKey}
  Admin token     ${stack.adminToken}
  Postgres        ${stack.superuserUrl}

Try:
  curl -s -X POST ${stack.apiRoot}/v1/project/projects -H 'X-API-Key: ${account.apiKey}' -H 'Content-Type: application/json' -d '{"name":"My App"}'

Ctrl-C stops everything; the next \`npm run dev\` keeps your data (.data/dev).`);

/** The development account, created on the first run and logged into afterwards. */
async function devAccount(apiRoot: string): Promise<{ email: string; password: string; apiKey: string }> {
  const file = join(DATA_DIR, "dev-account.json");
  let creds: { email: string; password: string };
  let token: string;
  try {
    creds = JSON.parse(await readFile(file, "utf8"));
    token = (await call(apiRoot, "/api/auth/login", creds)).token;
  } catch {
    creds = { email: "dev@slipway.local", password: randomBytes(12).toString("base64url") };
    token = (await call(apiRoot, "/api/auth/signup", { ...creds, name: "Development" })).token;
    await writeFile(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  }
  const me = await fetch(`${apiRoot}/api/auth/me`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json());
  return { ...creds, apiKey: me.api_key };
}

async function call(apiRoot: string, path: string, body: unknown) {
  const res = await fetch(`${apiRoot}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
