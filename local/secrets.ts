import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export type LocalSecrets = { JWT_SECRET: string; ENCRYPTION_KEY: string; ADMIN_TOKEN: string; CONTROL_PLANE_PASSWORD: string; RUNNER_SECRET: string };

/**
 * The local stack's secrets, made once and kept in the data directory so that a restart
 * can still decrypt what it stored. ADMIN_TOKEN from the environment wins.
 */
export async function loadOrCreateSecrets(file: string): Promise<LocalSecrets> {
  let secrets: LocalSecrets;
  try {
    secrets = JSON.parse(await readFile(file, "utf8"));
  } catch {
    secrets = {
      JWT_SECRET: randomBytes(32).toString("base64url"),
      ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ADMIN_TOKEN: `adm_${randomBytes(24).toString("base64url")}`,
      CONTROL_PLANE_PASSWORD: randomBytes(18).toString("base64url"),
      RUNNER_SECRET: randomBytes(32).toString("base64url"),
    };
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  if (!secrets.RUNNER_SECRET) {
    // Data directories made before deployments existed get the runner's secret now.
    secrets.RUNNER_SECRET = randomBytes(32).toString("base64url");
    await writeFile(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  if (process.env.ADMIN_TOKEN) secrets.ADMIN_TOKEN = process.env.ADMIN_TOKEN;
  return secrets;
}
