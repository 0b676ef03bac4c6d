import { conflict, notFound } from "../errors.ts";
import { pgCode, UNIQUE_VIOLATION } from "../platform/db.ts";
import { isUuid } from "../platform/ids.ts";
import type { AuthDb } from "./auth-db.ts";

/** End users of a project's app, in the project's own auth_users table. */

type UserRow = {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  has_password: boolean;
  login_count: number;
  metadata: Record<string, unknown>;
  avatar_url: string | null;
  email_verified_at: string | null;
  last_login_at: string | null;
  created_at: string;
  updated_at: string;
};

/** A user as the API shows it (never the password hash). */
export type AuthUser = ReturnType<typeof userView>;

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

export function userView(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    has_password: row.has_password,
    login_count: row.login_count,
    metadata: row.metadata ?? {},
    avatar_url: row.avatar_url,
    email_verified: row.email_verified_at !== null,
    email_verified_at: iso(row.email_verified_at),
    last_login_at: iso(row.last_login_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const USER_NOT_FOUND = "No user with this id in the project. List users with GET /{slug}/auth/users.";

/** Creates a user; 409 when the email is taken in any letter case. */
export async function createUser(db: AuthDb, input: { email: string; name?: string | null; metadata?: Record<string, unknown>; passwordHash: string | null }): Promise<AuthUser> {
  try {
    const rows = await db.query<UserRow>(
      `insert into auth_users (email, name, metadata, password_hash, password_changed_at)
       values ($1, $2, $3, $4, case when $4::text is null then null else now() end) returning *`,
      [input.email, input.name ?? null, JSON.stringify(input.metadata ?? {}), input.passwordHash],
    );
    return userView(rows[0]!);
  } catch (err) {
    if (pgCode(err) === UNIQUE_VIOLATION) throw conflict("A user with this email already exists in the project; log in, or use a magic link or password reset.");
    throw err;
  }
}

/** The user with this email (any case) and their password hash, for login. */
export async function findUserForLogin(db: AuthDb, email: string): Promise<{ user: AuthUser; passwordHash: string | null } | null> {
  const rows = await db.query<UserRow>(`select * from auth_users where lower(email) = lower($1)`, [email]);
  return rows[0] ? { user: userView(rows[0]), passwordHash: rows[0].password_hash } : null;
}

export async function findUserById(db: AuthDb, id: string): Promise<{ user: AuthUser; passwordHash: string | null }> {
  const rows = isUuid(id) ? await db.query<UserRow>(`select * from auth_users where id = $1`, [id]) : [];
  if (!rows[0]) throw notFound(USER_NOT_FOUND);
  return { user: userView(rows[0]), passwordHash: rows[0].password_hash };
}

/** The user with this email, created (without a password) when there is none: magic links. */
export async function findOrCreateUserByEmail(db: AuthDb, email: string, name: string | null): Promise<AuthUser> {
  const rows = await db.query<UserRow>(
    `with created as (
       insert into auth_users (email, name) values ($1, $2) on conflict ((lower(email))) do nothing returning *)
     select * from created union all select * from auth_users where lower(email) = lower($1) limit 1`,
    [email, name],
  );
  // A concurrent first link may have inserted after this statement's snapshot: read again.
  const row = rows[0] ?? (await db.query<UserRow>(`select * from auth_users where lower(email) = lower($1)`, [email]))[0];
  return userView(row!);
}

export async function listUsers(db: AuthDb, opts: { limit: number; offset: number; verifiedOnly: boolean }): Promise<{ users: AuthUser[]; total: number }> {
  const where = opts.verifiedOnly ? "where email_verified_at is not null" : "";
  const rows = await db.query<UserRow & { total: string }>(
    `select *, count(*) over () as total from auth_users ${where} order by created_at, id limit $1 offset $2`,
    [opts.limit, opts.offset],
  );
  let total = rows[0] ? Number(rows[0].total) : 0;
  if (!rows[0] && opts.offset > 0) total = Number((await db.query<{ n: string }>(`select count(*) as n from auth_users ${where}`))[0]!.n);
  return { users: rows.map(userView), total };
}

/** Changes the profile fields given; metadata is replaced as a whole. */
export async function updateUser(db: AuthDb, id: string, patch: { name?: string | null; metadata?: Record<string, unknown>; avatar_url?: string | null }): Promise<AuthUser> {
  const rows = isUuid(id)
    ? await db.query<UserRow>(
        `update auth_users set
           name = case when $2 then $3 else name end,
           metadata = case when $4 then $5::jsonb else metadata end,
           avatar_url = case when $6 then $7 else avatar_url end,
           updated_at = now()
         where id = $1 returning *`,
        [id, patch.name !== undefined, patch.name ?? null, patch.metadata !== undefined, JSON.stringify(patch.metadata ?? {}), patch.avatar_url !== undefined, patch.avatar_url ?? null],
      )
    : [];
  if (!rows[0]) throw notFound(USER_NOT_FOUND);
  return userView(rows[0]);
}

/** Deletes the user; their refresh tokens go with them (on delete cascade). */
export async function deleteUser(db: AuthDb, id: string): Promise<void> {
  const rows = isUuid(id) ? await db.query(`delete from auth_users where id = $1 returning id`, [id]) : [];
  if (!rows[0]) throw notFound(USER_NOT_FOUND);
}

/** Counts a sign-in; a magic link also proves the email address. */
export async function recordLogin(db: AuthDb, id: string, opts: { verifiesEmail: boolean }): Promise<AuthUser> {
  const rows = await db.query<UserRow>(
    `update auth_users set login_count = login_count + 1, last_login_at = now(),
       email_verified_at = case when $2 then coalesce(email_verified_at, now()) else email_verified_at end
     where id = $1 returning *`,
    [id, opts.verifiesEmail],
  );
  if (!rows[0]) throw notFound(USER_NOT_FOUND);
  return userView(rows[0]);
}

/** Stores a new password hash; a reset by email also proves the address. */
export async function storePasswordHash(db: AuthDb, id: string, hash: string, opts: { verifiesEmail: boolean }): Promise<AuthUser> {
  const rows = await db.query<UserRow>(
    `update auth_users set password_hash = $2, password_changed_at = now(), updated_at = now(),
       email_verified_at = case when $3 then coalesce(email_verified_at, now()) else email_verified_at end
     where id = $1 returning *`,
    [id, hash, opts.verifiesEmail],
  );
  if (!rows[0]) throw notFound(USER_NOT_FOUND);
  return userView(rows[0]);
}
