// The production provisioner (one Neon project per Slipway project) against a stand-in
// of the Neon API that provisions on the local server, reached through the real driver.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import pg from "pg";
import { startPostgres, type RunningPostgres } from "../../local/postgres.ts";
import { startNeonProxy, type RunningNeonProxy } from "../../local/neon-proxy.ts";
import { freePort } from "../../local/free-port.ts";
import { EnvVars } from "../../src/env.ts";
import { NeonProvisioner } from "../../src/projects/neon-provisioner.ts";
import { ApiError } from "../../src/errors.ts";
import { startFakeNeonApi, type FakeNeonApi } from "./fake-neon-api.ts";

const dataDir = resolve(`.data/test-neon-provisioner-${randomBytes(4).toString("hex")}`);
let postgres: RunningPostgres;
let proxy: RunningNeonProxy;
let api: FakeNeonApi;

const config = (overrides: Record<string, string> = {}) =>
  EnvVars.parse({
    API_ROOT: "http://127.0.0.1:1", SITES_DOMAIN: "localhost", SITE_URL_TEMPLATE: "http://{slug}.localhost", GIT_ROOT: "http://127.0.0.1:1/git",
    APPS_DOMAIN: "localhost", PROVISIONER: "neon", NEON_LOCAL_PROXY: `127.0.0.1:${proxy.port}`, DATABASE_URL: "postgresql://x:y@127.0.0.1:1/x",
    JWT_SECRET: "x".repeat(32), ENCRYPTION_KEY: "A".repeat(44), ADMIN_TOKEN: "x".repeat(16),
    STORAGE_S3_ENDPOINT: "http://127.0.0.1:1/s3", STORAGE_BUCKET: "b", STORAGE_ACCESS_KEY_ID: "k", STORAGE_SECRET_ACCESS_KEY: "s",
    RUNNER_URL: "http://127.0.0.1:1", RUNNER_SECRET: "x".repeat(32), APP_URL_TEMPLATE: "http://{slug}.localhost",
    NEON_API_KEY: "neon-test-key", NEON_API_URL: api.url, NEON_REGION: "aws-eu-central-1",
    ...overrides,
  });

beforeAll(async () => {
  postgres = await startPostgres({ dataDir, port: await freePort() });
  proxy = await startNeonProxy({ port: 0 });
  api = await startFakeNeonApi({ superuserUrl: postgres.superuserUrl, apiKey: "neon-test-key" });
});

afterAll(async () => {
  await api?.stop();
  await proxy?.stop();
  await postgres?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("NeonProvisioner", () => {
  it("creates one Neon project named for the slug, with its database, owner role and extensions", async () => {
    const db = await new NeonProvisioner(config()).provision("shop-neon");
    const request = api.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/projects", auth: "Bearer neon-test-key" });
    expect(request.body.project).toMatchObject({ name: "slipway-shop-neon", pg_version: 17, region_id: "aws-eu-central-1", branch: { database_name: "shop_neon", role_name: "shop_neon_owner" } });
    expect(db).toMatchObject({ name: "shop_neon", user: "shop_neon_owner", host: "127.0.0.1", port: postgres.port, providerRef: expect.stringMatching(/^fake-/) });
    // The owner creates the trusted extensions; on Neon it may also create pg_stat_statements
    // and vector (neon_superuser), which a plain owner on the local server may not.
    expect(db.extensions).toEqual(["uuid-ossp", "pgcrypto"]);

    const client = new pg.Client({ host: db.host, port: db.port, user: db.user, password: db.password, database: db.name });
    await client.connect();
    const { rows } = await client.query(`select current_user as u, gen_random_uuid() is not null as ok`);
    await client.end();
    expect(rows).toEqual([{ u: "shop_neon_owner", ok: true }]);
  });

  it("removes the Neon project on deprovision", async () => {
    const provisioner = new NeonProvisioner(config());
    const db = await provisioner.provision("gone-neon");
    await provisioner.deprovision(db);
    expect(api.requests.at(-1)).toMatchObject({ method: "DELETE", path: `/projects/${db.providerRef}` });
    const client = new pg.Client({ connectionString: postgres.superuserUrl });
    await client.connect();
    const left = await client.query(`select 1 from pg_database where datname = 'gone_neon'`);
    await client.end();
    expect(left.rowCount).toBe(0);
  });

  it("answers 503 naming Neon when the API refuses, and when the key is missing", async () => {
    const refused = await new NeonProvisioner(config({ NEON_API_KEY: "wrong-key" })).provision("nope-neon").catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(503);
    expect(refused.detail).toMatch(/Neon API refused.*HTTP 401/);
    expect(() => new NeonProvisioner(config({ NEON_API_KEY: "" }))).toThrow(/NEON_API_KEY/);
  });
});
