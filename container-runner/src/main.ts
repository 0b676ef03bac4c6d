// The container-runner process: `node container-runner/src/main.ts` (configuration in the environment).
import { loadRunnerConfig } from "./config.ts";
import { startRunner } from "./runner.ts";

const config = loadRunnerConfig(process.env);
const runner = await startRunner(config);
console.log(`[runner] listening on ${runner.url}; apps at ${config.RUNNER_APP_URL_TEMPLATE.replace("{port}", String(runner.port))}`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await runner.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
