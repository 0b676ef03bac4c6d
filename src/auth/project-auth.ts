import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import { randomToken, seal, unseal } from "../platform/crypto.ts";
import { notFound } from "../errors.ts";
import type { Project } from "../projects/projects.ts";

/**
 * A project's end-user auth settings in the control plane (table project_auth): its
 * publishable key, its ES256 signing key and the extra origins redirect_url may name.
 * Made on first use, so existing projects get them without a backfill.
 */

export const ACCESS_TOKEN_ALG = "ES256";

export type ProjectAuth = {
  project_id: string;
  publishable_key: string;
  signing_kid: string;
  signing_key_sealed: string;
  signing_public_jwk: JWK;
  allowed_redirect_origins: string[];
};

const PUBLISHABLE_PREFIX = "slw_pk_";

export function looksLikePublishableKey(key: string): boolean {
  return key.startsWith(PUBLISHABLE_PREFIX);
}

/** The project's auth settings, made (key pair and publishable key) the first time. */
export async function projectAuth(config: EnvVars, projectId: string): Promise<ProjectAuth> {
  const sql = controlPlane(config);
  const existing = (await sql.query(`select * from project_auth where project_id = $1`, [projectId])) as ProjectAuth[];
  if (existing[0]) return existing[0];
  const { privateKey, publicKey } = await generateKeyPair(ACCESS_TOKEN_ALG, { extractable: true });
  const kid = randomToken(12);
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ACCESS_TOKEN_ALG, use: "sig" };
  const sealed = await seal(JSON.stringify(await exportJWK(privateKey)), config.ENCRYPTION_KEY);
  // Two first calls may race: the loser's insert does nothing and both read the winner's row.
  await sql.query(
    `insert into project_auth (project_id, publishable_key, signing_kid, signing_key_sealed, signing_public_jwk)
     values ($1, $2, $3, $4, $5) on conflict (project_id) do nothing`,
    [projectId, PUBLISHABLE_PREFIX + randomToken(24), kid, sealed, JSON.stringify(publicJwk)],
  );
  const rows = (await sql.query(`select * from project_auth where project_id = $1`, [projectId])) as ProjectAuth[];
  return rows[0]!;
}

/** The project a publishable key belongs to, by slug; null when the key is not that project's. */
export async function projectIdForPublishableKey(config: EnvVars, slug: string, key: string): Promise<string | null> {
  const rows = (await controlPlane(config).query(
    `select p.id from project_auth a join projects p on p.id = a.project_id where p.slug = $1 and a.publishable_key = $2`,
    [slug, key],
  )) as { id: string }[];
  return rows[0]?.id ?? null;
}

/** Replaces the publishable key; the old one stops working at once. */
export async function regeneratePublishableKey(config: EnvVars, project: Project): Promise<string> {
  await projectAuth(config, project.id);
  const key = PUBLISHABLE_PREFIX + randomToken(24);
  await controlPlane(config).query(`update project_auth set publishable_key = $2, updated_at = now() where project_id = $1`, [project.id, key]);
  return key;
}

export async function setAllowedRedirectOrigins(config: EnvVars, project: Project, origins: string[]): Promise<ProjectAuth> {
  await projectAuth(config, project.id);
  const rows = (await controlPlane(config).query(
    `update project_auth set allowed_redirect_origins = $2, updated_at = now() where project_id = $1 returning *`,
    [project.id, origins],
  )) as ProjectAuth[];
  if (!rows[0]) throw notFound("Project not found.");
  return rows[0];
}

const privateKeys = new Map<string, Promise<CryptoKey | Uint8Array>>();

/** The project's private signing key, decrypted once per isolate and kept by kid. */
export function signingKey(config: EnvVars, auth: ProjectAuth): Promise<CryptoKey | Uint8Array> {
  let key = privateKeys.get(auth.signing_kid);
  if (!key) {
    key = unseal(auth.signing_key_sealed, config.ENCRYPTION_KEY).then((jwk) => importJWK(JSON.parse(jwk) as JWK, ACCESS_TOKEN_ALG));
    key.catch(() => privateKeys.delete(auth.signing_kid));
    privateKeys.set(auth.signing_kid, key);
  }
  return key;
}
