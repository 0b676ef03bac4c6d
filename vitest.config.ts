import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";

// Three kinds of test, one command (`npm test`):
//   worker — unit tests inside workerd, the runtime the Worker ships on;
//   local  — Node tests of the local stand-ins (Postgres, the Neon proxy);
//   e2e    — the whole local stack started once, driven by real clients.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: { name: "worker", include: ["test/worker/**/*.test.ts"] },
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
    ],
  },
});
