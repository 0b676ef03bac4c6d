import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, apiRoot, asApp, newAccount, newProject, outbox, request, uniqueEmail, waitForEmail, type TestAccount } from "./client.ts";

/** The link in an email's text part. */
const linkIn = (text: string) => new URL(text.match(/https?:\/\/\S+/)![0]);

/** Follows a link without following its redirect. */
const visit = async (url: URL | string) => {
  const res = await fetch(url, { redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), body: await res.text() };
};

const advanceClock = (slug: string, seconds: number) =>
  request("POST", `${apiRoot}/dev/auth-clock`, { body: { slug, advance_seconds: seconds }, headers: { Authorization: `Bearer ${adminToken}` } });

describe("Magic links and password resets, read from the local outbox", () => {
  let owner: TestAccount;
  let slug: string;
  let app: ReturnType<typeof asApp>;
  const redirect = "http://localhost:3000/welcome?from=email";

  beforeAll(async () => {
    owner = await newAccount({ plan: "starter" });
    slug = (await newProject(owner, "Mail App")).slug;
    app = asApp(slug, (await owner.api("GET", `/${slug}/info`)).body.auth.publishable_key);
  });

  it("sends a magic link that creates the user, signs them in once, and hands the app a one-time code", async () => {
    const email = uniqueEmail("magic");
    const sent = await app("POST", "/send-magic-link", { email, redirect_url: redirect, name: "Linus" });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ sent: true, expires_in_minutes: 15 });
    const message = (await outbox(email))[0]!;
    expect(message).toMatchObject({ to: email, subject: "Your sign-in link for Mail App" });
    expect(message.text).toContain("expires in 15 minutes");
    expect(message.html).toContain("<a href=");
    expect(Date.parse(message.created_at)).not.toBeNaN();
    const link = linkIn(message.text);
    expect(link.searchParams.get("token")!.length).toBeGreaterThanOrEqual(43); // ≥ 256 bits base64url

    const followed = await visit(link);
    expect(followed.status).toBe(302);
    const target = new URL(followed.location!);
    expect(`${target.origin}${target.pathname}`).toBe("http://localhost:3000/welcome");
    expect(target.searchParams.get("from")).toBe("email");
    expect(target.searchParams.get("verified")).toBe("true");
    const userId = target.searchParams.get("user_id")!;

    const user = await owner.api("GET", `/${slug}/auth/users/${userId}`);
    expect(user.body).toMatchObject({ email, name: "Linus", has_password: false, email_verified: true, login_count: 1 });

    const session = await app("POST", "/token", { code: target.searchParams.get("code") });
    expect(session.status).toBe(200);
    expect(session.body.user.id).toBe(userId);
    expect(session.body.access_token).toBeTruthy();
    // The code and the link are single-use.
    expect((await app("POST", "/token", { code: target.searchParams.get("code") })).status).toBe(401);
    const again = await visit(link);
    expect(again.status).toBe(400);
    expect(JSON.parse(again.body).code).toBe("token_used");
  });

  it("lets exactly one of several concurrent uses of one magic link succeed", async () => {
    const email = uniqueEmail("race");
    await app("POST", "/send-magic-link", { email, redirect_url: redirect });
    const link = linkIn((await outbox(email))[0]!.text);
    const results = await Promise.all(Array.from({ length: 6 }, () => visit(link)));
    expect(results.filter((r) => r.status === 302)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
  });

  it("refuses a magic link after 15 minutes (the token clock moved forward, no sleeping)", async () => {
    const fresh = (await newProject(owner, "Clock App")).slug;
    const freshApp = asApp(fresh, (await owner.api("GET", `/${fresh}/info`)).body.auth.publishable_key);
    const email = uniqueEmail("late");
    await freshApp("POST", "/send-magic-link", { email, redirect_url: redirect });
    const link = linkIn((await outbox(email))[0]!.text);
    expect((await advanceClock(fresh, 14 * 60)).body.expired).toBe(0);
    expect((await advanceClock(fresh, 61)).body.expired).toBe(1);
    const late = await visit(link);
    expect(late.status).toBe(400);
    expect(JSON.parse(late.body).detail).toMatch(/not valid|expired/);
  });

  it("gives a password to a magic-link user with set-password, after which both ways work", async () => {
    const email = uniqueEmail("both");
    await app("POST", "/send-magic-link", { email, redirect_url: redirect });
    const userId = new URL((await visit(linkIn((await outbox(email))[0]!.text))).location!).searchParams.get("user_id");
    expect((await app("POST", "/login", { email, password: "chosen later" })).status).toBe(401);
    expect((await owner.api("POST", `/${slug}/auth/set-password`, { user_id: userId, password: "chosen later" })).status).toBe(200);
    const login = await app("POST", "/login", { email, password: "chosen later" });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ has_password: true, login_count: 2 });
  });

  it("refuses redirect_url outside the site, the app, localhost and allowed origins with 400, sending nothing", async () => {
    const email = uniqueEmail("evil");
    for (const url of ["https://evil.example/steal", "javascript:alert(1)", "not a url", "https://user:pw@localhost/x"]) {
      const reply = await app("POST", "/send-magic-link", { email, redirect_url: url });
      expect(reply.status, url).toBe(400);
      expect((await app("POST", "/reset-password", { email, redirect_url: url })).status).toBe(400);
    }
    expect(await outbox(email)).toHaveLength(0);
    // The project's site is allowed, and so is an origin the owner allows.
    expect((await app("POST", "/send-magic-link", { email, redirect_url: `http://${slug}.localhost:8787/in` })).status).toBe(200);
    expect((await owner.api("PATCH", `/${slug}/auth/settings`, { allowed_redirect_origins: ["https://app.example.com"] })).status).toBe(200);
    expect((await app("POST", "/send-magic-link", { email, redirect_url: "https://app.example.com/in" })).status).toBe(200);
    expect((await owner.api("PATCH", `/${slug}/auth/settings`, { allowed_redirect_origins: ["https://app.example.com/path"] })).status).toBe(400);
    expect((await owner.api("PATCH", `/${slug}/auth/settings`, { allowed_redirect_origins: ["http://app.example.com"] })).status).toBe(400);
  });

  it("resets a password: GET checks the token without spending it, POST sets the password once and ends old sessions", async () => {
    const email = uniqueEmail("reset");
    const signup = await app("POST", "/signup", { email, password: "old password" });
    const asked = await app("POST", "/reset-password", { email, redirect_url: "http://localhost:3000/reset" });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ sent: true, expires_in_minutes: 60 });
    const message = await waitForEmail(email);
    expect(message.subject).toBe("Reset your Mail App password");
    const link = linkIn(message.text);
    expect(`${link.origin}${link.pathname}`).toBe("http://localhost:3000/reset");
    const token = link.searchParams.get("token")!;

    for (let i = 0; i < 2; i++) {
      const checked = await app("GET", `/reset-password/confirm?token=${encodeURIComponent(token)}`);
      expect(checked.status).toBe(200);
      expect(checked.body).toMatchObject({ valid: true, email });
    }
    const short = await app("POST", "/reset-password/confirm", { token, new_password: "short" });
    expect(short.status).toBe(400);
    const confirmed = await app("POST", "/reset-password/confirm", { token, new_password: "new password" });
    expect(confirmed.status).toBe(200);
    expect((await app("POST", "/reset-password/confirm", { token, new_password: "newer password" })).status).toBe(400);
    expect((await app("GET", `/reset-password/confirm?token=${encodeURIComponent(token)}`)).status).toBe(400);
    expect((await app("POST", "/login", { email, password: "old password" })).status).toBe(401);
    expect((await app("POST", "/login", { email, password: "new password" })).status).toBe(200);
    expect((await app("POST", "/refresh", { refresh_token: signup.body.refresh_token })).status).toBe(401);
  });

  it("withdraws outstanding reset and magic links when the password changes", async () => {
    const email = uniqueEmail("withdraw");
    const signup = await app("POST", "/signup", { email, password: "old password" });
    await app("POST", "/reset-password", { email, redirect_url: redirect });
    await app("POST", "/send-magic-link", { email, redirect_url: redirect });
    await waitForEmail(email, 2); // the reset email is delivered after the response
    const messages = await outbox(email);
    const resetToken = linkIn(messages.find((m) => m.subject.startsWith("Reset"))!.text).searchParams.get("token")!;
    const magicLink = linkIn(messages.find((m) => m.subject.startsWith("Your sign-in link"))!.text);
    expect((await owner.api("POST", `/${slug}/auth/change-password`, { user_id: signup.body.user.id, current_password: "old password", new_password: "new password" })).status).toBe(200);
    expect((await app("POST", "/reset-password/confirm", { token: resetToken, new_password: "attacker pw" })).status).toBe(400);
    expect((await visit(magicLink)).status).toBe(400);
  });

  it("answers reset requests the same for registered and unknown emails, and mails only the registered one", async () => {
    const known = uniqueEmail("known");
    const unknown = uniqueEmail("unknown");
    await app("POST", "/signup", { email: known, password: "long enough pw" });
    const a = await app("POST", "/reset-password", { email: known, redirect_url: redirect });
    const b = await app("POST", "/reset-password", { email: unknown, redirect_url: redirect });
    expect(a.status).toBe(b.status);
    expect(a.body).toEqual(b.body);
    await waitForEmail(known);
    // The unknown address's request finished too (it was sent before the known one's mail arrived) and mailed nothing.
    expect(await outbox(unknown)).toHaveLength(0);
  });

  it("refuses an expired reset token after the token clock moves an hour forward", async () => {
    const fresh = (await newProject(owner, "Reset Clock")).slug;
    const freshApp = asApp(fresh, (await owner.api("GET", `/${fresh}/info`)).body.auth.publishable_key);
    const email = uniqueEmail("reset-late");
    await freshApp("POST", "/signup", { email, password: "old password" });
    await freshApp("POST", "/reset-password", { email, redirect_url: redirect });
    const token = linkIn((await waitForEmail(email)).text).searchParams.get("token")!;
    await advanceClock(fresh, 3601);
    expect((await freshApp("GET", `/reset-password/confirm?token=${encodeURIComponent(token)}`)).status).toBe(400);
    expect((await freshApp("POST", "/reset-password/confirm", { token, new_password: "new password" })).status).toBe(400);
  });

  it("enforces the plan's magic links per day with 429 and Retry-After (10 on Free)", async () => {
    const free = await newAccount();
    const freeSlug = (await newProject(free, "Free App")).slug;
    const freeApp = asApp(freeSlug, (await free.api("GET", `/${freeSlug}/info`)).body.auth.publishable_key);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await freeApp("POST", "/send-magic-link", { email: uniqueEmail("quota"), redirect_url: redirect })).status);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    const refused = await freeApp("POST", "/send-magic-link", { email: uniqueEmail("quota"), redirect_url: redirect });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(/magic links per day/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("keeps the outbox and the test clock to local development with the outbox provider", async () => {
    expect((await request("GET", `${apiRoot}/dev/outbox`)).status).toBe(400);
    expect((await request("POST", `${apiRoot}/dev/auth-clock`, { body: { slug, advance_seconds: 1 } })).status).toBe(401);
  });
});
