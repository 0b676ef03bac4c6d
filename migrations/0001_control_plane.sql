-- The control plane: accounts, projects, tickets. Each project's own tables live in the
-- project's dedicated database, never here.

create table accounts (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  name text,
  password_hash text not null,
  plan text not null default 'free' check (plan in ('free', 'starter', 'pro', 'enterprise')),
  -- API keys are looked up by SHA-256; the sealed copy is what /api/auth/me shows.
  api_key_hash text not null unique,
  api_key_sealed text not null,
  api_key_created_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index accounts_email_key on accounts (lower(email));

create table projects (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  name text not null,
  slug text not null unique,
  status text not null default 'active' check (status in ('active', 'suspended')),
  db_name text not null,
  db_host text not null,
  db_port integer not null,
  db_user text not null,
  db_password_sealed text not null,
  -- Last measured size of the project's database, so the limit check is not a size query
  -- on every request; measured again when older than DB_SIZE_TTL_SECONDS.
  db_size_bytes bigint,
  db_size_measured_at timestamptz,
  -- Per-project override of the plan's database limit (set by an admin).
  db_limit_bytes bigint,
  extensions text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index projects_account_idx on projects (account_id, created_at);

create table tickets (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  project_id uuid references projects (id) on delete set null,
  subject text not null,
  message text not null,
  kind text not null check (kind in ('support', 'feature_request')),
  status text not null default 'open' check (status in ('open', 'answered')),
  response text,
  responded_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tickets_account_idx on tickets (account_id, created_at desc);
