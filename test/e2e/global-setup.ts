import { rm } from "node:fs/promises";
import type { TestProject } from "vitest/node";
import { startStack, type RunningStack } from "../../local/stack.ts";
import { freePort } from "../../local/free-port.ts";

declare module "vitest" {
  export interface ProvidedContext {
    apiRoot: string;
    adminToken: string;
    superuserUrl: string;
    s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
    runnerUrl: string;
    runnerPort: number;
  }
}

// Ports and data of their own, so test runs (and a running `npm run dev`) never collide.
const DATA_DIR = `.data/test-e2e-${process.pid}`;
let stack: RunningStack | undefined;

/** Starts the real local stack once for all end-to-end tests, on ports of its own. */
export async function setup(project: TestProject) {
  await rm(DATA_DIR, { recursive: true, force: true });
  const verbose = !!process.env.E2E_VERBOSE;
  stack = await startStack({
    dataDir: DATA_DIR,
    ports: { postgres: await freePort(), proxy: await freePort(), worker: await freePort(), runner: await freePort() },
    // Short, so a test can see a deploy whose runner died end failed.
    deployStaleSeconds: 12,
    log: (part, line) => {
      // Postgres logs the SQL errors tests provoke on purpose; show only what is fatal.
      const alarming = part === "postgres" ? /FATAL|PANIC/.test(line) : /error|✘/i.test(line);
      if (verbose || alarming) console.log(`[${part}] ${line}`);
    },
  });
  project.provide("apiRoot", stack.apiRoot);
  project.provide("adminToken", stack.adminToken);
  project.provide("superuserUrl", stack.superuserUrl);
  project.provide("s3", stack.s3);
  project.provide("runnerUrl", stack.runner.url);
  project.provide("runnerPort", stack.ports.runner);
}

export async function teardown() {
  await stack?.stop();
  await rm(DATA_DIR, { recursive: true, force: true });
}
