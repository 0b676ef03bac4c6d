import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { startPostgres } from "./postgres.ts";
import { startNeonProxy } from "./neon-proxy.ts";
import { startWorker } from "./worker.ts";
import { prepareControlPlane } from "./control-plane.ts";
import { loadOrCreateSecrets } from "./secrets.ts";
import { startRunnerProcess } from "./runner.ts";

export type StackPorts = { postgres: number; proxy: number; worker: number; runner: number };
export type RunningStack = {
  apiRoot: string;
  adminToken: string;
  superuserUrl: string;
  controlPlaneUrl: string;
  /** The local S3 endpoint answering presigned URLs, and its credentials (for S3 clients in tests). */
  s3: { endpoint: string; bucket: string; region: string; accessKeyId: string; secretAccessKey: string };
  ports: StackPorts;
  /** The container-runner: its API and proxy address, and its current process id. */
  runner: { url: string; pid(): number | undefined };
  stop(): Promise<void>;
};

/** Default ports of `npm run dev`; the tests use their own set. */
export const DEV_PORTS: StackPorts = { postgres: 54320, proxy: 54321, worker: 8787, runner: 8790 };

/**
 * Starts the whole local platform: PostgreSQL 17, the Neon protocol proxy, and the
 * Worker under wrangler dev, all keeping their state under dataDir.
 */
export async function startStack(opts: { dataDir: string; ports: StackPorts; log: (part: string, line: string) => void; deployStaleSeconds?: number }): Promise<RunningStack> {
  const dataDir = resolve(opts.dataDir);
  const secrets = await loadOrCreateSecrets(join(dataDir, "secrets.json"));
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const postgres = await startPostgres({ dataDir: join(dataDir, "postgres"), port: opts.ports.postgres, log: (l) => opts.log("postgres", l) });
    stops.push(postgres.stop);
    opts.log("stack", `PostgreSQL 17 on 127.0.0.1:${postgres.port}`);
    const controlPlaneUrl = await prepareControlPlane(postgres.superuserUrl, secrets.CONTROL_PLANE_PASSWORD);
    const proxy = await startNeonProxy({ port: opts.ports.proxy, log: (l) => opts.log("proxy", l) });
    stops.push(proxy.stop);
    opts.log("stack", `Neon WebSocket and SQL-over-HTTP proxy on 127.0.0.1:${proxy.port}`);
    const apiRoot = `http://127.0.0.1:${opts.ports.worker}`;
    // The Worker answers presigned URLs itself under /s3; its S3 secret derives from the stack's secrets.
    const s3 = { endpoint: `${apiRoot}/s3`, bucket: "slipway", region: "auto", accessKeyId: "slipway-local", secretAccessKey: createHash("sha256").update(`s3:${secrets.JWT_SECRET}`).digest("hex") };
    const appUrlTemplate = `http://{slug}.localhost:${opts.ports.runner}`;
    const runner = await startRunnerProcess({
      port: opts.ports.runner,
      log: (l) => opts.log("runner", l),
      env: {
        RUNNER_SECRET: secrets.RUNNER_SECRET,
        RUNNER_DATA_DIR: join(dataDir, "runner"),
        RUNNER_APP_URL_TEMPLATE: appUrlTemplate,
        RUNNER_PLATFORM_GIT_HOSTS: `127.0.0.1:${opts.ports.worker}`,
        ...(opts.deployStaleSeconds ? { RUNNER_HEARTBEAT_SECONDS: String(Math.max(1, Math.floor(opts.deployStaleSeconds / 4))) } : {}),
      },
    });
    stops.push(runner.stop);
    opts.log("stack", `container-runner on ${runner.url} (apps at ${appUrlTemplate})`);
    const worker = await startWorker({
      port: opts.ports.worker,
      persistDir: join(dataDir, "wrangler"),
      log: (l) => opts.log("worker", l),
      vars: {
        API_ROOT: apiRoot,
        SITES_DOMAIN: "localhost",
        SITE_URL_TEMPLATE: `http://{slug}.localhost:${opts.ports.worker}`,
        GIT_ROOT: `${apiRoot}/git`,
        APPS_DOMAIN: "localhost",
        PROVISIONER: "local",
        NEON_LOCAL_PROXY: `127.0.0.1:${proxy.port}`,
        DATABASE_URL: controlPlaneUrl,
        PROVISIONER_DATABASE_URL: postgres.superuserUrl,
        JWT_SECRET: secrets.JWT_SECRET,
        ENCRYPTION_KEY: secrets.ENCRYPTION_KEY,
        ADMIN_TOKEN: secrets.ADMIN_TOKEN,
        STORAGE_PROVIDER: "local",
        STORAGE_S3_ENDPOINT: s3.endpoint,
        STORAGE_BUCKET: s3.bucket,
        STORAGE_REGION: s3.region,
        STORAGE_ACCESS_KEY_ID: s3.accessKeyId,
        STORAGE_SECRET_ACCESS_KEY: s3.secretAccessKey,
        EMAIL_PROVIDER: "outbox",
        RUNNER_URL: runner.url,
        RUNNER_SECRET: secrets.RUNNER_SECRET,
        APP_URL_TEMPLATE: appUrlTemplate,
        ...(opts.deployStaleSeconds ? { DEPLOY_STALE_SECONDS: String(opts.deployStaleSeconds) } : {}),
      },
    });
    stops.push(worker.stop);
    return { apiRoot, adminToken: secrets.ADMIN_TOKEN, superuserUrl: postgres.superuserUrl, controlPlaneUrl, s3, ports: opts.ports, runner: { url: runner.url, pid: runner.pid }, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
