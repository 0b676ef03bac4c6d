import type { EnvVars } from "../env.ts";
import type { Plan } from "../config/plans.ts";
import { controlPlane, pgCode, UNIQUE_VIOLATION } from "../platform/db.ts";
import { conflict, notFound } from "../errors.ts";
import { unseal } from "../platform/crypto.ts";
import { isUuid } from "../platform/ids.ts";
import { hashApiKey, issueApiKey } from "./api-keys.ts";

/** An account as the API shows it (never the password hash). */
export type Account = {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  created_at: string;
};

type AccountRow = Account & { password_hash: string; api_key_sealed: string };

const COLUMNS = "id, email, name, plan, created_at, password_hash, api_key_sealed";

function publicAccount(row: AccountRow): Account {
  return { id: row.id, email: row.email, name: row.name, plan: row.plan, created_at: new Date(row.created_at).toISOString() };
}

/** Creates an account with its one API key; 409 when the email is taken (any case). */
export async function createAccount(
  config: EnvVars,
  input: { email: string; name?: string | null; passwordHash: string },
): Promise<{ account: Account; apiKey: string }> {
  const key = await issueApiKey(config.ENCRYPTION_KEY);
  try {
    const rows = (await controlPlane(config).query(
      `insert into accounts (email, name, password_hash, api_key_hash, api_key_sealed)
       values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
      [input.email, input.name ?? null, input.passwordHash, key.hash, key.sealed],
    )) as AccountRow[];
    return { account: publicAccount(rows[0]!), apiKey: key.key };
  } catch (err) {
    if (pgCode(err) === UNIQUE_VIOLATION) throw conflict("An account with this email already exists; log in instead.");
    throw err;
  }
}

/** The account and its password hash, for login. */
export async function findAccountForLogin(config: EnvVars, email: string): Promise<{ account: Account; passwordHash: string } | null> {
  const rows = (await controlPlane(config).query(`select ${COLUMNS} from accounts where lower(email) = lower($1)`, [email])) as AccountRow[];
  return rows[0] ? { account: publicAccount(rows[0]), passwordHash: rows[0].password_hash } : null;
}

export async function findAccountById(config: EnvVars, id: string): Promise<Account | null> {
  const rows = (await controlPlane(config).query(`select ${COLUMNS} from accounts where id = $1`, [id])) as AccountRow[];
  return rows[0] ? publicAccount(rows[0]) : null;
}

/** The account an API key belongs to, looked up by the key's hash. */
export async function findAccountByApiKey(config: EnvVars, apiKey: string): Promise<Account | null> {
  const rows = (await controlPlane(config).query(`select ${COLUMNS} from accounts where api_key_hash = $1`, [await hashApiKey(apiKey)])) as AccountRow[];
  return rows[0] ? publicAccount(rows[0]) : null;
}

/** The account's current API key, decrypted from its sealed copy. */
export async function revealApiKey(config: EnvVars, accountId: string): Promise<{ key: string; created_at: string }> {
  const rows = (await controlPlane(config).query(`select api_key_sealed, api_key_created_at from accounts where id = $1`, [accountId])) as {
    api_key_sealed: string;
    api_key_created_at: string;
  }[];
  if (!rows[0]) throw notFound("Account not found.");
  return { key: await unseal(rows[0].api_key_sealed, config.ENCRYPTION_KEY), created_at: new Date(rows[0].api_key_created_at).toISOString() };
}

/** Replaces the account's API key in one statement: the old key stops working at once. */
export async function regenerateApiKey(config: EnvVars, accountId: string): Promise<{ key: string; created_at: string }> {
  const key = await issueApiKey(config.ENCRYPTION_KEY);
  const rows = (await controlPlane(config).query(
    `update accounts set api_key_hash = $2, api_key_sealed = $3, api_key_created_at = now(), updated_at = now() where id = $1 returning api_key_created_at`,
    [accountId, key.hash, key.sealed],
  )) as { api_key_created_at: string }[];
  if (!rows[0]) throw notFound("Account not found.");
  return { key: key.key, created_at: new Date(rows[0].api_key_created_at).toISOString() };
}

/** Sets an account's plan; the account is named by id or email. */
export async function setAccountPlan(config: EnvVars, idOrEmail: string, plan: Plan): Promise<Account> {
  const byId = isUuid(idOrEmail);
  const rows = (await controlPlane(config).query(
    `update accounts set plan = $2, updated_at = now() where ${byId ? "id = $1::uuid" : "lower(email) = lower($1)"} returning ${COLUMNS}`,
    [idOrEmail, plan],
  )) as AccountRow[];
  if (!rows[0]) throw notFound(`No account with id or email ${idOrEmail}.`);
  return publicAccount(rows[0]);
}
