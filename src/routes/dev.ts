import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { createRouter, errors, json, jsonBody } from "./router.ts";
import { notFound } from "../errors.ts";
import { adminAuth } from "../middleware/auth.ts";
import { readOutbox } from "../email/outbox.ts";
import { findProjectBySlug } from "../projects/projects.ts";
import { hashPassword } from "../platform/argon2.ts";

// Local development only (EMAIL_PROVIDER=outbox); 404 everywhere else.
//   GET /dev/outbox?to=<email>            the emails "sent" to an address
//   POST /dev/auth-clock (admin token)    moves a project's AuthTokens clock forward (tests)
//   POST /dev/argon2 (admin token)        hashes `count` passwords, for bench/auth.ts

const devOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("config").EMAIL_PROVIDER !== "outbox") throw notFound("No such endpoint. See the API reference at /docs.");
  await next();
});

const OutboxMessage = z.object({ to: z.string(), subject: z.string(), text: z.string(), html: z.string(), created_at: z.string() });

export const devRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/outbox", tags: ["Development"], summary: "Emails kept by the local outbox provider, oldest first", middleware: [devOnly] as const, request: { query: z.object({ to: z.string().min(3, "to is required: the recipient's email") }) }, responses: { 200: json(z.object({ messages: z.array(OutboxMessage) }), "Messages"), ...errors(400, 404) } }),
    async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ messages: await readOutbox(c.env.BUCKET, c.req.valid("query").to) }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/auth-clock", tags: ["Development"], summary: "Move a project's auth-token clock forward, expiring what is due", middleware: [devOnly, adminAuth] as const, request: { body: jsonBody(z.object({ slug: z.string(), advance_seconds: z.number().int().min(1).max(366 * 86_400) })) }, responses: { 200: json(z.object({ expired: z.number().int() }), "Tokens deleted as expired"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { slug, advance_seconds } = c.req.valid("json");
      const project = await findProjectBySlug(c.get("config"), slug);
      if (!project) throw notFound(`Project "${slug}" not found.`);
      const stub = c.env.AUTH_TOKENS.get(c.env.AUTH_TOKENS.idFromName(project.id));
      return c.json({ expired: await stub.advanceClock(advance_seconds) }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/argon2", tags: ["Development"], summary: "Hash `count` passwords with the production Argon2id parameters (the bench times it from outside)", middleware: [devOnly, adminAuth] as const, request: { body: jsonBody(z.object({ count: z.number().int().min(0).max(100) })) }, responses: { 200: json(z.object({ hashed: z.number().int() }), "Done"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { count } = c.req.valid("json");
      for (let i = 0; i < count; i++) await hashPassword(`bench password ${i}`);
      return c.json({ hashed: count }, 200);
    },
  );
