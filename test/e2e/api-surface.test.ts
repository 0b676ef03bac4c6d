import { beforeAll, describe, expect, it } from "vitest";
import { apiRoot, BASE, newAccount, newProject, request, type TestAccount } from "./client.ts";

// Rules every project route follows, checked route by route.
const PROJECT_ROUTES: [string, string, unknown?][] = [
  ["GET", "/{slug}/info"],
  ["GET", "/{slug}/credentials"],
  ["POST", "/{slug}/sql", { query: "select 1" }],
  ["GET", "/{slug}/database/usage"],
  ["POST", "/{slug}/storage/upload", { filename: "a.txt", content_type: "text/plain" }],
  ["GET", "/{slug}/storage/download/a.txt"],
  ["GET", "/{slug}/storage/files"],
  ["DELETE", "/{slug}/storage/files/a.txt"],
  ["GET", "/{slug}/storage/usage"],
  ["POST", "/{slug}/files", { filename: "a.txt", content_type: "text/plain", content: "eA==" }],
  ["GET", "/{slug}/files"],
  ["DELETE", "/{slug}/files/a.txt"],
  ["POST", "/{slug}/redis/get", { key: "k" }],
  ["GET", "/{slug}/redis/usage"],
  ["POST", "/{slug}/git/files", { path: "a.txt", content: "YQ==", message: "m" }],
  ["GET", "/{slug}/git/refs"],
  ["GET", "/{slug}/git/tree"],
  ["GET", "/{slug}/git/file?path=a.txt"],
  ["GET", "/{slug}/git/log"],
  ["GET", "/{slug}/git/webhooks"],
  ["POST", "/{slug}/git/webhooks", { url: "https://example.test/hook" }],
  ["DELETE", "/{slug}/git/webhooks/1"],
  ["GET", "/{slug}/git/deploy-tokens"],
  ["POST", "/{slug}/git/deploy-tokens", {}],
  ["DELETE", "/{slug}/git/deploy-tokens/1"],
  ["POST", "/{slug}/deploy", {}],
  ["GET", "/{slug}/deploy/status"],
  ["GET", "/{slug}/deploy/history"],
  ["GET", "/{slug}/deploy/logs"],
  ["DELETE", "/{slug}/deploy"],
  ["POST", "/{slug}/restart"],
  ["POST", "/{slug}/stop"],
  ["POST", "/{slug}/start"],
  ["GET", "/{slug}/settings"],
  ["PATCH", "/{slug}/settings", { auto_deploy: false }],
];
const ACCOUNT_ROUTES: [string, string, unknown?][] = [
  ["GET", "/projects"],
  ["POST", "/projects", { name: "x" }],
  ["GET", "/tickets"],
  ["POST", "/tickets", { subject: "s", message: "m" }],
  ["GET", "/tickets/00000000-0000-0000-0000-000000000000"],
];

describe("rules common to every route", () => {
  let owner: TestAccount;
  let stranger: TestAccount;
  let slug: string;
  beforeAll(async () => {
    owner = await newAccount();
    stranger = await newAccount();
    slug = (await newProject(owner)).slug;
  });

  it.each([...PROJECT_ROUTES, ...ACCOUNT_ROUTES])("%s %s without an API key is 401 with detail (guest)", async (method, path, body) => {
    const reply = await request(method, `${BASE}${path.replace("{slug}", slug)}`, { body });
    expect(reply.status).toBe(401);
    expect(reply.body.detail).toMatch(/X-API-Key/);
  });

  it.each([...PROJECT_ROUTES, ...ACCOUNT_ROUTES])("%s %s with a wrong API key is 401 (guest)", async (method, path, body) => {
    const reply = await request(method, `${BASE}${path.replace("{slug}", slug)}`, { body, headers: { "X-API-Key": "slw_wrong" } });
    expect(reply.status).toBe(401);
  });

  it.each(PROJECT_ROUTES)("%s %s on another account's project is 404 (other account)", async (method, path, body) => {
    const reply = await stranger.api(method, path.replace("{slug}", slug), body);
    expect(reply.status).toBe(404);
    expect(JSON.stringify(reply.body)).not.toContain(owner.email);
  });

  // Routes that take a body (POST /stop, /start, /restart read none).
  it.each([...PROJECT_ROUTES, ...ACCOUNT_ROUTES].filter(([m, , body]) => m === "POST" && body !== undefined))("%s %s with malformed JSON is 400 with detail", async (method, path) => {
    const reply = await request(method, `${BASE}${path.replace("{slug}", slug)}`, { raw: "{not json", headers: { "X-API-Key": owner.apiKey, "Content-Type": "application/json" } });
    expect(reply.status).toBe(400);
    expect(typeof reply.body.detail).toBe("string");
  });

  it("refuses a body over 8 MiB with 413 before reading it all", async () => {
    const reply = await owner.api("POST", `/${slug}/sql`, { query: `select '${"x".repeat(9 * 1024 * 1024)}'` });
    expect(reply.status).toBe(413);
    expect(reply.body.detail).toMatch(/presigned/);
  });

  it("answers an unknown route with 404 in the error shape, carrying the request id", async () => {
    const reply = await request("GET", `${apiRoot}/v2/nothing-here`);
    expect(reply.status).toBe(404);
    expect(reply.body.detail).toMatch(/No such endpoint/);
    expect(reply.body.request_id).toBe(reply.headers.get("x-request-id"));
    expect(reply.headers.get("cache-control")).toBe("no-store");
  });
});

describe("CORS", () => {
  const preflight = (origin: string) =>
    fetch(`${BASE}/projects`, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-api-key" } });

  it.each(["http://localhost:3000", "http://my-app.localhost:8787", "http://127.0.0.1:5173"])("allows %s", async (origin) => {
    const res = await preflight(origin);
    expect(res.headers.get("access-control-allow-origin")).toBe(origin);
  });

  it.each(["https://evil.example.com", "https://localhost.evil.com", "null"])("refuses %s", async (origin) => {
    const res = await preflight(origin);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("API description", () => {
  it("serves an OpenAPI document generated from the request schemas", async () => {
    const doc = await (await fetch(`${apiRoot}/openapi.json`)).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/project/projects", "/v1/project/{slug}/sql", "/api/auth/signup", "/v1/project/tickets/{id}"]));
    const sqlBody = doc.paths["/v1/project/{slug}/sql"].post.requestBody.content["application/json"].schema;
    expect(sqlBody.required).toContain("query");
    // file paths contain "/": documented as a plain {path} parameter
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/project/{slug}/storage/download/{path}", "/v1/project/{slug}/storage/files/{path}", "/v1/project/{slug}/files/{path}"]));
  });

  it("serves a docs page", async () => {
    const res = await fetch(`${apiRoot}/docs`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/openapi\.json/);
  });
});
