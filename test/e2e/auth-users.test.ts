import { beforeAll, describe, expect, it } from "vitest";
import { asApp, newAccount, newProject, sql, uniqueEmail, type TestAccount } from "./client.ts";

describe("End users managed by the project owner (X-API-Key)", () => {
  let owner: TestAccount;
  let slug: string;
  let app: ReturnType<typeof asApp>;

  beforeAll(async () => {
    owner = await newAccount();
    slug = (await newProject(owner, "Users App")).slug;
    app = asApp(slug, (await owner.api("GET", `/${slug}/info`)).body.auth.publishable_key);
  });

  it("creates the auth tables with POST /auth/init, idempotently", async () => {
    const fresh = (await newProject(owner, "Init App")).slug;
    const first = await owner.api("POST", `/${fresh}/auth/init`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ initialized: true, tables: ["auth_users", "auth_refresh_tokens"] });
    expect((await owner.api("POST", `/${fresh}/auth/init`)).status).toBe(200);
    const tables = await sql(owner, fresh, "select table_name from information_schema.tables where table_name like 'auth_%' order by 1");
    expect(tables.body.rows.map((r: any) => r.table_name)).toEqual(["auth_refresh_tokens", "auth_users"]);
  });

  it("makes the tables again on the next auth call when the project dropped them", async () => {
    const fresh = (await newProject(owner, "Dropped")).slug;
    const freshApp = asApp(fresh, (await owner.api("GET", `/${fresh}/info`)).body.auth.publishable_key);
    expect((await freshApp("POST", "/signup", { email: uniqueEmail(), password: "long enough pw" })).status).toBe(201);
    await sql(owner, fresh, "drop table auth_refresh_tokens; drop table auth_users");
    expect((await freshApp("POST", "/signup", { email: uniqueEmail(), password: "long enough pw" })).status).toBe(201);
  });

  it("lists users with limit, offset and verified_only; gets, updates and deletes one", async () => {
    const emails = [uniqueEmail("a"), uniqueEmail("b"), uniqueEmail("c")];
    const ids: string[] = [];
    for (const email of emails) ids.push((await app("POST", "/signup", { email, password: "long enough pw" })).body.user.id);
    await sql(owner, slug, "update auth_users set email_verified_at = now() where id = $1", [ids[1]]);

    const all = await owner.api("GET", `/${slug}/auth/users?limit=100`);
    expect(all.status).toBe(200);
    expect(all.body.users.map((u: any) => u.id)).toEqual(expect.arrayContaining(ids));
    const page = await owner.api("GET", `/${slug}/auth/users?limit=1&offset=1`);
    expect(page.body).toMatchObject({ limit: 1, offset: 1, total: all.body.total });
    expect(page.body.users).toHaveLength(1);
    expect(page.body.users[0].id).toBe(all.body.users[1].id);
    const verified = await owner.api("GET", `/${slug}/auth/users?verified_only=true`);
    expect(verified.body.users.map((u: any) => u.id)).toEqual([ids[1]]);

    const one = await owner.api("GET", `/${slug}/auth/users/${ids[0]}`);
    expect(one.body).toMatchObject({ id: ids[0], email: emails[0], has_password: true, login_count: 0 });
    const patched = await owner.api("PATCH", `/${slug}/auth/users/${ids[0]}`, { name: "Grace", metadata: { roles: ["admin"] }, avatar_url: "https://example.com/g.png" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Grace", metadata: { roles: ["admin"] }, avatar_url: "https://example.com/g.png", email: emails[0] });
    const byRole = await sql(owner, slug, "select id from auth_users where metadata->'roles' ? 'admin'");
    expect(byRole.body.rows).toEqual([{ id: ids[0] }]);
    expect((await owner.api("PATCH", `/${slug}/auth/users/${ids[0]}`, { metadata: ["not", "an", "object"] })).status).toBe(400);

    const deleted = await owner.api("DELETE", `/${slug}/auth/users/${ids[2]}`);
    expect(deleted.status).toBe(200);
    expect((await owner.api("GET", `/${slug}/auth/users/${ids[2]}`)).status).toBe(404);
    expect((await owner.api("DELETE", `/${slug}/auth/users/${ids[2]}`)).status).toBe(404);
    expect((await app("POST", "/login", { email: emails[2], password: "long enough pw" })).status).toBe(401);
  });

  it("answers a malformed or unknown user id with 404", async () => {
    expect((await owner.api("GET", `/${slug}/auth/users/not-a-uuid`)).status).toBe(404);
    expect((await owner.api("GET", `/${slug}/auth/users/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });

  it("sets a password only for a user who has none", async () => {
    const signup = await app("POST", "/signup", { email: uniqueEmail(), password: "long enough pw" });
    const refused = await owner.api("POST", `/${slug}/auth/set-password`, { user_id: signup.body.user.id, password: "another password" });
    expect(refused.status).toBe(409);
  });

  it("shows another account nothing of this project's auth: 404 everywhere, with none of its data", async () => {
    const stranger = await newAccount();
    const user = (await app("POST", "/signup", { email: uniqueEmail("private"), password: "long enough pw" })).body.user;
    const paths: [string, string, unknown?][] = [
      ["GET", `/${slug}/auth/users`],
      ["GET", `/${slug}/auth/users/${user.id}`],
      ["PATCH", `/${slug}/auth/users/${user.id}`, { name: "x" }],
      ["DELETE", `/${slug}/auth/users/${user.id}`],
      ["POST", `/${slug}/auth/init`],
      ["GET", `/${slug}/auth/settings`],
      ["POST", `/${slug}/auth/set-password`, { user_id: user.id, password: "long enough pw" }],
      ["POST", `/${slug}/auth/login`, { email: user.email, password: "long enough pw" }],
      ["POST", `/${slug}/auth/signup`, { email: uniqueEmail(), password: "long enough pw" }],
    ];
    for (const [method, path, body] of paths) {
      const reply = await stranger.api(method, path, body);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain(user.id);
      expect(JSON.stringify(reply.body)).not.toContain(user.email);
    }
    expect((await owner.api("GET", `/${slug}/auth/users/${user.id}`)).body.name).toBeNull();
  });
});
