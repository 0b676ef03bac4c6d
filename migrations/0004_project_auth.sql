-- End-user authentication settings of each project (issue #4). The users themselves live
-- in the project's own database (auth_users); only what the platform must keep from the
-- project's SQL reach is here.

create table project_auth (
  project_id uuid primary key references projects (id) on delete cascade,
  -- The browser-safe key of the project's app: accepted only by the self-service auth
  -- endpoints (signup, login, refresh, logout, magic link, reset). Not a secret.
  publishable_key text not null unique,
  -- The project's ES256 signing key: the private JWK sealed with ENCRYPTION_KEY, and its
  -- public half as published in the project's JWKS.
  signing_kid text not null,
  signing_key_sealed text not null,
  signing_public_jwk jsonb not null,
  -- Origins besides the site, the deployed app and localhost that redirect_url may name.
  allowed_redirect_origins text[] not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
