import type { Bindings, EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import { seal, unseal } from "../platform/crypto.ts";
import { createDeployToken, isDeployToken } from "../git/deploy-tokens.ts";

const TOKEN_LABEL = "Slipway deploys (container-runner)";

/**
 * The clone URL the runner gets for the project's own repository: a read-only deploy
 * token of that repository as the password. One token per project, kept sealed in
 * deploy_settings and made again if the user revoked it. The runner removes it from the
 * checkout and its logs.
 */
export async function cloneUrlWithToken(env: Bindings, config: EnvVars, project: { id: string }, repoUrl: string): Promise<string> {
  const url = new URL(repoUrl);
  url.username = "deploy";
  url.password = await projectCloneToken(env, config, project);
  return url.toString();
}

async function projectCloneToken(env: Bindings, config: EnvVars, project: { id: string }): Promise<string> {
  const rows = (await controlPlane(config).query(`select clone_token_sealed from deploy_settings where project_id = $1`, [project.id])) as { clone_token_sealed: string | null }[];
  const sealed = rows[0]?.clone_token_sealed;
  if (sealed) {
    const token = await unseal(sealed, config.ENCRYPTION_KEY);
    if (await isDeployToken(env, project, token)) return token;
  }
  const { token } = await createDeployToken(env, project, TOKEN_LABEL);
  await controlPlane(config).query(
    `insert into deploy_settings (project_id, clone_token_sealed) values ($1, $2)
     on conflict (project_id) do update set clone_token_sealed = $2, updated_at = now()`,
    [project.id, await seal(token, config.ENCRYPTION_KEY)],
  );
  return token;
}
