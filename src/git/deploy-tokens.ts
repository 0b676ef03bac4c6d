import type { Bindings } from "../env.ts";
import { notFound } from "../errors.ts";
import { randomToken, sha256Hex } from "../platform/crypto.ts";
import type { DeployToken } from "../../durable-objects/git-repo.ts";

/**
 * Per-project deploy tokens: a password for git over HTTP that can clone and fetch one
 * repository and nothing else (no push, no API). Meant for builders and CI. Kept in the
 * repository's GitRepo object by SHA-256; the token is shown once, at creation.
 */

export const DEPLOY_TOKEN_PREFIX = "slw_dt_";

const repo = (env: Bindings, projectId: string) => env.GIT_REPO.get(env.GIT_REPO.idFromName(projectId));

export async function createDeployToken(env: Bindings, project: { id: string }, label: string | null): Promise<DeployToken & { token: string; read_only: true }> {
  const token = DEPLOY_TOKEN_PREFIX + randomToken(32);
  const row = await repo(env, project.id).addDeployToken(await sha256Hex(token), label);
  return { ...row, token, read_only: true };
}

export async function isDeployToken(env: Bindings, project: { id: string }, token: string): Promise<boolean> {
  return token.startsWith(DEPLOY_TOKEN_PREFIX) && repo(env, project.id).hasDeployToken(await sha256Hex(token));
}

export function listDeployTokens(env: Bindings, project: { id: string }): Promise<DeployToken[]> {
  return repo(env, project.id).listDeployTokens();
}

export async function revokeDeployToken(env: Bindings, project: { id: string }, id: number): Promise<void> {
  if (!(await repo(env, project.id).removeDeployToken(id))) throw notFound(`No deploy token ${id}.`);
}
