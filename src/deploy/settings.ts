import type { EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import { seal, unseal } from "../platform/crypto.ts";

/** What is stored; `auto_deploy` null means the user never chose. */
export type StoredDeploySettings = { auto_deploy: boolean | null; env: Record<string, string> };
/** What applies: auto_deploy is on once the webhook is registered, until the user turns it off. */
export type DeploySettings = { auto_deploy: boolean; git_webhook_id: number | null; env: Record<string, string> };

type Row = { auto_deploy: boolean | null; env_sealed: string | null };

export async function getStoredDeploySettings(config: EnvVars, projectId: string): Promise<StoredDeploySettings> {
  const rows = (await controlPlane(config).query(`select auto_deploy, env_sealed from deploy_settings where project_id = $1`, [projectId])) as Row[];
  const row = rows[0];
  if (!row) return { auto_deploy: null, env: {} };
  return { auto_deploy: row.auto_deploy, env: row.env_sealed ? JSON.parse(await unseal(row.env_sealed, config.ENCRYPTION_KEY)) : {} };
}

/** The settings in force, given the platform webhook's id (null while unregistered). */
export function effectiveSettings(stored: StoredDeploySettings, gitWebhookId: number | null): DeploySettings {
  return { auto_deploy: stored.auto_deploy ?? gitWebhookId !== null, git_webhook_id: gitWebhookId, env: stored.env };
}

/** Writes the given fields; `env` entries set to null are removed. */
export async function updateDeploySettings(config: EnvVars, projectId: string, change: { auto_deploy?: boolean; env?: Record<string, string | null> }): Promise<StoredDeploySettings> {
  const current = await getStoredDeploySettings(config, projectId);
  const env = { ...current.env };
  for (const [name, value] of Object.entries(change.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  const next: StoredDeploySettings = { auto_deploy: change.auto_deploy ?? current.auto_deploy, env };
  const sealed = Object.keys(env).length ? await seal(JSON.stringify(env), config.ENCRYPTION_KEY) : null;
  await controlPlane(config).query(
    `insert into deploy_settings (project_id, auto_deploy, env_sealed) values ($1, $2, $3)
     on conflict (project_id) do update set auto_deploy = $2, env_sealed = $3, updated_at = now()`,
    [projectId, next.auto_deploy, sealed],
  );
  return next;
}
