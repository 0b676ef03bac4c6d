// The production email provider, posting to a local HTTP server that stands in for the
// email API (Resend-compatible), since this machine cannot reach one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { EnvVars } from "../../src/env.ts";
import { emailSender } from "../../src/email/email-sender.ts";
import { ApiError } from "../../src/errors.ts";
import { freePort } from "../../local/free-port.ts";

let server: Server;
let url: string;
let status = 200;
const received: { headers: Record<string, string | string[] | undefined>; body: any }[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    received.push({ headers: req.headers, body: JSON.parse(raw) });
    res.writeHead(status, { "Content-Type": "application/json" }).end(status === 200 ? '{"id":"email-1"}' : '{"message":"nope"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/emails`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const config = (emailUrl: string) =>
  EnvVars.parse({
    API_ROOT: "http://127.0.0.1:1", SITES_DOMAIN: "localhost", SITE_URL_TEMPLATE: "http://{slug}.localhost", GIT_ROOT: "http://127.0.0.1:1/git",
    APPS_DOMAIN: "localhost", PROVISIONER: "local", DATABASE_URL: "postgresql://x:y@127.0.0.1:1/x",
    JWT_SECRET: "x".repeat(32), ENCRYPTION_KEY: "A".repeat(44), ADMIN_TOKEN: "x".repeat(16),
    STORAGE_S3_ENDPOINT: "http://127.0.0.1:1/s3", STORAGE_BUCKET: "b", STORAGE_ACCESS_KEY_ID: "k", STORAGE_SECRET_ACCESS_KEY: "s",
    RUNNER_URL: "http://127.0.0.1:1", RUNNER_SECRET: "x".repeat(32), APP_URL_TEMPLATE: "http://{slug}.localhost",
    EMAIL_PROVIDER: "http", EMAIL_HTTP_URL: emailUrl, EMAIL_HTTP_TOKEN: "re_test_token", EMAIL_FROM: "Shop <no-reply@shop.test>",
  });
const message = { to: "ada@example.test", subject: "Your sign-in link", text: "Follow https://x", html: "<p>Follow <a href=\"https://x\">x</a></p>" };

describe("the HTTP email provider", () => {
  it("posts {from, to, subject, text, html} with the bearer token", async () => {
    status = 200;
    await emailSender({} as never, config(url)).send(message);
    const last = received.at(-1)!;
    expect(last.headers.authorization).toBe("Bearer re_test_token");
    expect(last.headers["content-type"]).toBe("application/json");
    expect(last.body).toEqual({ from: "Shop <no-reply@shop.test>", to: ["ada@example.test"], subject: message.subject, text: message.text, html: message.html });
  });

  it("answers 502 naming the email service when it refuses or cannot be reached", async () => {
    status = 500;
    const refused = await emailSender({} as never, config(url)).send(message).catch((e) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(502);
    expect(refused.detail).toMatch(/email service refused/);
    const unreachable = await emailSender({} as never, config(`http://127.0.0.1:${await freePort()}/emails`)).send(message).catch((e) => e);
    expect(unreachable.status).toBe(502);
    expect(unreachable.detail).toMatch(/could not be reached/);
  });
});
