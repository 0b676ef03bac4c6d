-- The provider's id for a project's database (the Neon project id), so it can be removed.
alter table projects add column db_provider_ref text;
