import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";

// Three kinds of test, one command (`npm test`):
//   worker — unit tests inside workerd, the runtime the Worker ships on;
//   local  — Node tests of the local stand-ins (Postgres, the Neon proxy);
//   e2e    — the whole local stack started once, driven by real clients;
//   runner — the container-runner in Node, with real git repositories and apps.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Configuration for unit tests that never reach a database.
            miniflare: {
              bindings: {
                SITE_URL_TEMPLATE: "http://{slug}.localhost:8787",
                DATABASE_URL: "postgresql://unit:unit@127.0.0.1:1/unit",
                JWT_SECRET: "unit-test-secret-unit-test-secret-0123",
                ENCRYPTION_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                ADMIN_TOKEN: "unit-test-admin-token",
                STORAGE_PROVIDER: "local",
                STORAGE_S3_ENDPOINT: "http://127.0.0.1:8787/s3",
                STORAGE_ACCESS_KEY_ID: "unit-test-key",
                STORAGE_SECRET_ACCESS_KEY: "unit-test-secret",
                RUNNER_URL: "http://127.0.0.1:1",
                RUNNER_SECRET: "unit-test-runner-secret-0123456789abcdef",
                APP_URL_TEMPLATE: "http://{slug}.localhost:8790",
              },
            },
          }),
        ],
        // Generous timeout: the first test of a file also pays for starting its isolate, slow on a busy 2-core machine.
        test: { name: "worker", include: ["test/worker/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: { name: "local", include: ["test/local/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 120_000 },
      },
      {
        test: { name: "runner", include: ["container-runner/test/**/*.test.ts"], environment: "node", testTimeout: 180_000, hookTimeout: 60_000 },
      },
    ],
  },
});
