-- Container deployments (issue #7): one row per deploy, its state kept by the project's
-- DeployCoordinator Durable Object from the container-runner's signed reports.

create table deployments (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects (id) on delete cascade,
  status text not null default 'pending'
    check (status in ('pending', 'building', 'running', 'failed', 'stopped', 'superseded', 'destroyed')),
  -- manual: POST /deploy or a file push with deploy true; webhook: a git push with auto_deploy on.
  trigger text not null check (trigger in ('manual', 'webhook')),
  -- Never carries credentials; the project's own repository is cloned with a token added at hand-over.
  repo_url text not null,
  branch text not null,
  external boolean not null default false,
  commit_sha text,
  stack text,
  -- Why it failed, or what happened last, in words for the user.
  detail text,
  -- Ordering of the runner's reports (microseconds from the runner's clock); older ones are ignored.
  last_report_seq bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index deployments_project_idx on deployments (project_id, created_at desc);

create table deploy_settings (
  project_id uuid primary key references projects (id) on delete cascade,
  auto_deploy boolean not null default false,
  -- The platform webhook's id in the project's git hosting, once registered.
  git_webhook_id integer,
  -- The app's own environment variables: a JSON object, sealed (AES-256-GCM) like database passwords.
  env_sealed text,
  updated_at timestamptz not null default now()
);
