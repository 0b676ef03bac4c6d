import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";

it("answers /health without touching a database", async () => {
  const res = await exports.default.fetch("http://x/health");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ ok: true });
});

it("answers an unknown path with a 404 in the error shape", async () => {
  const res = await exports.default.fetch("http://x/nope");
  expect(res.status).toBe(404);
  const body = (await res.json()) as { detail: string; request_id: string };
  expect(body.detail).toMatch(/No such endpoint/);
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
});

it("answers 503 naming the database, not 500, when the control plane is unreachable", async () => {
  // The unit-test configuration points DATABASE_URL at a closed port.
  const res = await exports.default.fetch("http://x/v1/project/projects", { headers: { "X-API-Key": "slw_anything" } });
  expect(res.status).toBe(503);
  const body = (await res.json()) as { detail: string; code: string };
  expect(body.code).toBe("database_unavailable");
  expect(body.detail).toMatch(/database is unavailable/);
});
