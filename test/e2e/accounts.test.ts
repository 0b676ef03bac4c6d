import { describe, expect, it } from "vitest";
import { apiRoot, newAccount, request, uniqueEmail } from "./client.ts";

const auth = (path: string) => `${apiRoot}/api/auth${path}`;

describe("dashboard accounts", () => {
  it("signs up, logs in and shows the API key at /me", async () => {
    const email = uniqueEmail();
    const signup = await request("POST", auth("/signup"), { body: { email, password: "long enough pw", name: "Ada" } });
    expect(signup.status).toBe(201);
    expect(signup.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(signup.body.account).toMatchObject({ email, name: "Ada", plan: "free" });
    expect(signup.body.account).not.toHaveProperty("password_hash");

    const login = await request("POST", auth("/login"), { body: { email: email.toUpperCase(), password: "long enough pw" } });
    expect(login.status).toBe(200);
    expect(login.body.account.id).toBe(signup.body.account.id);

    const me = await request("GET", auth("/me"), { headers: { Authorization: `Bearer ${login.body.token}` } });
    expect(me.status).toBe(200);
    expect(me.body.api_key).toMatch(/^slw_[\w-]{43}$/);
    expect(me.body.email).toBe(email);
  });

  it("rejects a password shorter than 8 characters with 400", async () => {
    const reply = await request("POST", auth("/signup"), { body: { email: uniqueEmail(), password: "short" } });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/password must be at least 8 characters/);
  });

  it("rejects an invalid email with 400", async () => {
    const reply = await request("POST", auth("/signup"), { body: { email: "not-an-email", password: "long enough pw" } });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toMatch(/email/);
  });

  it("refuses a second signup with the same email in any case with 409", async () => {
    const account = await newAccount();
    const reply = await request("POST", auth("/signup"), { body: { email: account.email.toUpperCase(), password: "another password" } });
    expect(reply.status).toBe(409);
    expect(reply.body.detail).toMatch(/already exists/);
  });

  it("answers a wrong password and an unknown email alike with 401", async () => {
    const account = await newAccount();
    const wrong = await request("POST", auth("/login"), { body: { email: account.email, password: "wrong password" } });
    const unknown = await request("POST", auth("/login"), { body: { email: uniqueEmail(), password: "wrong password" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it("refuses /me without a token or with a forged one", async () => {
    expect((await request("GET", auth("/me"))).status).toBe(401);
    const forged = await request("GET", auth("/me"), { headers: { Authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl" } });
    expect(forged.status).toBe(401);
    expect(forged.body.detail).toMatch(/log in/i);
  });

  it("regenerates the API key: the new one works and the old one stops at once", async () => {
    const account = await newAccount();
    expect((await account.api("GET", "/projects")).status).toBe(200);
    const regen = await request("POST", auth("/regenerate-api-key"), { headers: { Authorization: `Bearer ${account.token}` } });
    expect(regen.status).toBe(200);
    expect(regen.body.api_key).not.toBe(account.apiKey);

    const old = await account.api("GET", "/projects");
    expect(old.status).toBe(401);
    const fresh = await account.api("GET", "/projects", undefined, { "X-API-Key": regen.body.api_key });
    expect(fresh.status).toBe(200);
    const me = await request("GET", auth("/me"), { headers: { Authorization: `Bearer ${account.token}` } });
    expect(me.body.api_key).toBe(regen.body.api_key);
  });
});
