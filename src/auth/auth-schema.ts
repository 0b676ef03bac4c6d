import type { EnvVars } from "../env.ts";
import { withSession } from "../platform/db.ts";
import { projectDatabase, type Project } from "../projects/projects.ts";

/**
 * The auth tables in the project's own database, so the project can query and join its
 * users with SQL. Created on the first auth call (or POST /auth/init); every statement is
 * idempotent, and an advisory lock keeps two first calls from racing on the catalog.
 */
export const AUTH_TABLES = ["auth_users", "auth_refresh_tokens"] as const;

const AUTH_SCHEMA = `
begin;
select pg_advisory_xact_lock(hashtext('slipway.auth_schema'));
create table if not exists auth_users (
  id uuid primary key default gen_random_uuid(),
  email text not null check (length(email) between 3 and 254),
  name text,
  -- Argon2id PHC string; null for users who only ever used a magic link.
  password_hash text,
  has_password boolean generated always as (password_hash is not null) stored,
  login_count integer not null default 0,
  metadata jsonb not null default '{}'::jsonb check (jsonb_typeof(metadata) = 'object'),
  avatar_url text,
  email_verified_at timestamptz,
  last_login_at timestamptz,
  password_changed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists auth_users_email_key on auth_users (lower(email));
create index if not exists auth_users_created_idx on auth_users (created_at, id);
create table if not exists auth_refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth_users (id) on delete cascade,
  -- One family per sign-in; every refresh rotates within it, a reused token revokes it.
  family_id uuid not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index if not exists auth_refresh_tokens_user_idx on auth_refresh_tokens (user_id);
create index if not exists auth_refresh_tokens_family_idx on auth_refresh_tokens (family_id);
commit;`;

// Projects whose tables this isolate has already made sure of.
const ready = new Set<string>();

/** Creates the auth tables if they are missing. `force` checks again even if this isolate did. */
export async function ensureAuthTables(config: EnvVars, project: Project, force = false): Promise<void> {
  if (!force && ready.has(project.id)) return;
  const db = await projectDatabase(config, project);
  await withSession(config, db.connection_string, (client) => client.query(AUTH_SCHEMA));
  ready.add(project.id);
}

export function forgetAuthTables(projectId: string): void {
  ready.delete(projectId);
}
