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
  -- The commit the trigger named (a file push or a git push), so one push deploys once.
  source_commit text,
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
create index deployments_source_commit_idx on deployments (project_id, source_commit) where source_commit is not null;

-- git_webhook_id is not stored here: the project's GitRepo object keeps its webhooks.
create table deploy_settings (
  project_id uuid primary key references projects (id) on delete cascade,
  -- null: not chosen, which means on once the platform webhook is registered (the interface's rule).
  auto_deploy boolean,
  -- The app's own environment variables: a JSON object, sealed (AES-256-GCM) like database passwords.
  env_sealed text,
  -- A read-only deploy token of the project's repository (git hosting), sealed: how the runner clones it.
  clone_token_sealed text,
  updated_at timestamptz not null default now()
);
