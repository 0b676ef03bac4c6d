import { exports } from "cloudflare:workers";
import { it, expect } from "vitest";
it("answers health", async () => {
  const res = await exports.default.fetch("http://x/health");
  expect(await res.json()).toEqual({ ok: true });
});
