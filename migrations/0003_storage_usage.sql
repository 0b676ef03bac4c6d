-- Object storage and static sites live in R2 under projects/<project id>/{objects,site}/; this table keeps the
-- measured total per project (re-measured by listing R2 when older than
-- STORAGE_USAGE_TTL_SECONDS, or at once after a write the Worker sees) and the admin's
-- per-project override of the plan's storage limit.
create table project_storage (
  project_id uuid primary key references projects (id) on delete cascade,
  used_bytes bigint not null default 0,
  object_count integer not null default 0,
  -- null: not measured since the last write, measure before trusting used_bytes.
  measured_at timestamptz,
  limit_bytes bigint
);
