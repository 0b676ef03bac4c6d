import { createRemoteJWKSet, jwtVerify } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { asApp, BASE, newAccount, newProject, request, sql, uniqueEmail, type TestAccount } from "./client.ts";

describe("End-user password auth (the project's app with its publishable key)", () => {
  let owner: TestAccount;
  let slug: string;
  let app: ReturnType<typeof asApp>;
  let publishableKey: string;

  beforeAll(async () => {
    owner = await newAccount();
    slug = (await newProject(owner, "Password App")).slug;
    const info = await owner.api("GET", `/${slug}/info`);
    publishableKey = info.body.auth.publishable_key;
    app = asApp(slug, publishableKey);
  });

  it("shows the publishable key and JWKS address in the project details", async () => {
    const info = await owner.api("GET", `/${slug}/info`);
    expect(info.body.auth.publishable_key).toMatch(/^slw_pk_[A-Za-z0-9_-]{32}$/);
    expect(info.body.auth.jwks_url).toBe(`${BASE}/${slug}/auth/jwks.json`);
  });

  it("signs a user up with 201, a session, and the interface's user fields", async () => {
    const email = uniqueEmail("signup");
    const reply = await app("POST", "/signup", { email, password: "long enough pw", name: "Ada", metadata: { role: "admin" } });
    expect(reply.status).toBe(201);
    expect(reply.body.success).toBe(true);
    expect(reply.body.user).toMatchObject({ email, name: "Ada", has_password: true, login_count: 0, metadata: { role: "admin" }, avatar_url: null, email_verified: false });
    expect(reply.body.user.password_hash).toBeUndefined();
    expect(reply.body.token_type).toBe("Bearer");
    expect(reply.body.expires_in).toBe(900);
    expect(reply.body.refresh_token).toMatch(/^rt_/);
  });

  it("creates auth_users in the project's own database, with an Argon2id hash and metadata queryable by SQL", async () => {
    const email = uniqueEmail("sql");
    await app("POST", "/signup", { email, password: "long enough pw", metadata: { role: "editor" } });
    const rows = await sql(owner, slug, "select email, password_hash, metadata->>'role' as role from auth_users where email = $1", [email]);
    expect(rows.status).toBe(200);
    expect(rows.body.rows[0].role).toBe("editor");
    expect(rows.body.rows[0].password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it("answers a password shorter than 8 characters with 400 and creates nobody", async () => {
    const email = uniqueEmail("short");
    const reply = await app("POST", "/signup", { email, password: "1234567" });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/at least 8 characters/);
    const rows = await sql(owner, slug, "select count(*)::int as n from auth_users where lower(email) = lower($1)", [email]);
    expect(rows.body.rows[0].n).toBe(0);
  });

  it("answers a taken email with 409, whatever its letter case", async () => {
    const email = uniqueEmail("dup");
    expect((await app("POST", "/signup", { email, password: "long enough pw" })).status).toBe(201);
    const again = await app("POST", "/signup", { email: email.toUpperCase(), password: "another password" });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already exists/);
  });

  it("logs in with the right password, counting login_count; wrong password and unknown email are the same 401", async () => {
    const email = uniqueEmail("login");
    await app("POST", "/signup", { email, password: "long enough pw" });
    const first = await app("POST", "/login", { email, password: "long enough pw" });
    expect(first.status).toBe(200);
    expect(first.body.user).toMatchObject({ email, login_count: 1 });
    const second = await app("POST", "/login", { email: email.toUpperCase(), password: "long enough pw" });
    expect(second.body.user.login_count).toBe(2);
    const wrong = await app("POST", "/login", { email, password: "wrong password" });
    const unknown = await app("POST", "/login", { email: uniqueEmail("nobody"), password: "wrong password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
    expect(wrong.body.code).toBe(unknown.body.code);
  });

  it("issues an ES256 access token that a server verifies offline with the project's JWKS", async () => {
    const email = uniqueEmail("jwt");
    const signup = await app("POST", "/signup", { email, password: "long enough pw" });
    const jwks = createRemoteJWKSet(new URL(`${BASE}/${slug}/auth/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(signup.body.access_token, jwks, { issuer: `${BASE}/${slug}/auth`, audience: slug });
    expect(protectedHeader.alg).toBe("ES256");
    expect(payload.sub).toBe(signup.body.user.id);
    expect(payload.email).toBe(email);
    expect((payload.exp as number) - (payload.iat as number)).toBe(900);
    // Another project's keys do not verify it.
    const otherSlug = (await newProject(owner, "Other")).slug;
    await owner.api("GET", `/${otherSlug}/info`);
    const otherJwks = createRemoteJWKSet(new URL(`${BASE}/${otherSlug}/auth/jwks.json`));
    await expect(jwtVerify(signup.body.access_token, otherJwks)).rejects.toThrow();
  });

  it("rotates refresh tokens: a spent one fails and revokes its whole sign-in; logout ends a session", async () => {
    const email = uniqueEmail("refresh");
    const signup = await app("POST", "/signup", { email, password: "long enough pw" });
    const r1 = signup.body.refresh_token;
    const refreshed = await app("POST", "/refresh", { refresh_token: r1 });
    expect(refreshed.status).toBe(200);
    const r2 = refreshed.body.refresh_token;
    expect(r2).not.toBe(r1);
    // Replaying r1 (a stolen copy) fails and also ends r2.
    expect((await app("POST", "/refresh", { refresh_token: r1 })).status).toBe(401);
    expect((await app("POST", "/refresh", { refresh_token: r2 })).status).toBe(401);
    // A fresh login, then logout: its refresh token stops working.
    const login = await app("POST", "/login", { email, password: "long enough pw" });
    expect((await app("POST", "/logout", { refresh_token: login.body.refresh_token })).body).toEqual({ success: true });
    expect((await app("POST", "/refresh", { refresh_token: login.body.refresh_token })).status).toBe(401);
  });

  it("lets exactly one of several concurrent refreshes with one token succeed", async () => {
    const signup = await app("POST", "/signup", { email: uniqueEmail("race"), password: "long enough pw" });
    const replies = await Promise.all(Array.from({ length: 5 }, () => app("POST", "/refresh", { refresh_token: signup.body.refresh_token })));
    expect(replies.filter((r) => r.status === 200).length).toBe(1);
    expect(replies.filter((r) => r.status === 401).length).toBe(4);
  });

  it("changes a password given the current one (owner, server-side) and ends the user's sessions", async () => {
    const email = uniqueEmail("change");
    const signup = await app("POST", "/signup", { email, password: "first password" });
    const id = signup.body.user.id;
    const wrong = await owner.api("POST", `/${slug}/auth/change-password`, { user_id: id, current_password: "not it at all", new_password: "second password" });
    expect(wrong.status).toBe(401);
    const short = await owner.api("POST", `/${slug}/auth/change-password`, { user_id: id, current_password: "first password", new_password: "short" });
    expect(short.status).toBe(400);
    const ok = await owner.api("POST", `/${slug}/auth/change-password`, { user_id: id, current_password: "first password", new_password: "second password" });
    expect(ok.status).toBe(200);
    expect((await app("POST", "/login", { email, password: "first password" })).status).toBe(401);
    expect((await app("POST", "/login", { email, password: "second password" })).status).toBe(200);
    expect((await app("POST", "/refresh", { refresh_token: signup.body.refresh_token })).status).toBe(401);
  });

  it("refuses the publishable key on owner-only endpoints, and a wrong key anywhere", async () => {
    const owned = await app("GET", "/users");
    expect(owned.status).toBe(401);
    expect(owned.body.detail).toMatch(/X-API-Key/);
    const wrongKey = await asApp(slug, "slw_pk_not-the-key")("POST", "/login", { email: uniqueEmail(), password: "whatever1" });
    expect(wrongKey.status).toBe(401);
    const none = await request("POST", `${BASE}/${slug}/auth/login`, { body: { email: uniqueEmail(), password: "whatever1" } });
    expect(none.status).toBe(401);
  });

  it("answers 429 with Retry-After after repeated failed logins for one email, for registered and unknown emails alike", async () => {
    const registered = uniqueEmail("brute");
    await app("POST", "/signup", { email: registered, password: "long enough pw" });
    for (const email of [registered, uniqueEmail("brute-unknown")]) {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await app("POST", "/login", { email, password: "wrong guess " + i })).status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      const blocked = await app("POST", "/login", { email, password: "long enough pw" });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(statuses[10]).toBe(429);
    }
  });
});
