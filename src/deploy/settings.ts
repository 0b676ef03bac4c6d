import type { EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import { seal, unseal } from "../platform/crypto.ts";

export type DeploySettings = { auto_deploy: boolean; git_webhook_id: number | null; env: Record<string, string> };

type Row = { auto_deploy: boolean; git_webhook_id: number | null; env_sealed: string | null };

/** A project's deploy settings; defaults (auto_deploy off, no webhook, no env) until first written. */
export async function getDeploySettings(config: EnvVars, projectId: string): Promise<DeploySettings> {
  const rows = (await controlPlane(config).query(`select auto_deploy, git_webhook_id, env_sealed from deploy_settings where project_id = $1`, [projectId])) as Row[];
  const row = rows[0];
  if (!row) return { auto_deploy: false, git_webhook_id: null, env: {} };
  return { auto_deploy: row.auto_deploy, git_webhook_id: row.git_webhook_id, env: row.env_sealed ? JSON.parse(await unseal(row.env_sealed, config.ENCRYPTION_KEY)) : {} };
}

/** Writes the given fields; `env` entries set to null are removed. */
export async function updateDeploySettings(
  config: EnvVars,
  projectId: string,
  change: { auto_deploy?: boolean; git_webhook_id?: number | null; env?: Record<string, string | null> },
): Promise<DeploySettings> {
  const current = await getDeploySettings(config, projectId);
  const env = { ...current.env };
  for (const [name, value] of Object.entries(change.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  const next: DeploySettings = {
    auto_deploy: change.auto_deploy ?? current.auto_deploy,
    git_webhook_id: change.git_webhook_id !== undefined ? change.git_webhook_id : current.git_webhook_id,
    env,
  };
  const sealed = Object.keys(env).length ? await seal(JSON.stringify(env), config.ENCRYPTION_KEY) : null;
  await controlPlane(config).query(
    `insert into deploy_settings (project_id, auto_deploy, git_webhook_id, env_sealed) values ($1, $2, $3, $4)
     on conflict (project_id) do update set auto_deploy = $2, git_webhook_id = $3, env_sealed = $4, updated_at = now()`,
    [projectId, next.auto_deploy, next.git_webhook_id, sealed],
  );
  return next;
}
