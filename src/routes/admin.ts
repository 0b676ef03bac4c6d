import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, BearerSecurity } from "./router.ts";
import { adminAuth } from "../middleware/auth.ts";
import { setAccountPlan } from "../accounts/accounts.ts";
import { answerTicket } from "../tickets/tickets.ts";
import { setDatabaseLimit } from "../projects/projects.ts";
import { setStorageLimit } from "../storage/usage.ts";
import { Plan } from "../config/plans.ts";
import { notFound } from "../errors.ts";
import { isUuid } from "../platform/ids.ts";
import { Account } from "./accounts.ts";

// /admin (Authorization: Bearer <ADMIN_TOKEN>):
//   PATCH /accounts/{id or email}  POST /tickets/{id}/response  PATCH /projects/{slug}


export const adminRoutes = createRouter();
adminRoutes.use("*", adminAuth);
adminRoutes
  .openapi(
    createRoute({ method: "patch", path: "/accounts/{account}", tags: ["Admin"], summary: "Change an account's plan", security: BearerSecurity, request: { params: z.object({ account: z.string().openapi({ description: "account id or email" }) }), body: jsonBody(z.object({ plan: Plan })) }, responses: { 200: json(Account, "The account"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await setAccountPlan(c.get("config"), c.req.valid("param").account, c.req.valid("json").plan), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/tickets/{id}/response", tags: ["Admin"], summary: "Answer a ticket", security: BearerSecurity, request: { params: z.object({ id: z.string() }), body: jsonBody(z.object({ response: z.string().trim().min(1, "response is required").max(20_000) })) }, responses: { 200: json(z.object({}).passthrough(), "The answered ticket"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound(`Ticket ${id} not found.`);
      return c.json(await answerTicket(c.get("config"), id, c.req.valid("json").response), 200);
    },
  )
  .openapi(
    createRoute({ method: "patch", path: "/projects/{slug}", tags: ["Admin"], summary: "Override a project's database or storage limit (null restores the plan's)", security: BearerSecurity, request: { params: z.object({ slug: z.string() }), body: jsonBody(z.object({ database_limit_bytes: z.number().int().positive().nullable().optional(), storage_limit_bytes: z.number().int().positive().nullable().optional() }).refine((b) => b.database_limit_bytes !== undefined || b.storage_limit_bytes !== undefined, "give database_limit_bytes or storage_limit_bytes")) }, responses: { 200: json(z.object({ slug: z.string(), database_limit_bytes: z.number().nullable().optional(), storage_limit_bytes: z.number().nullable().optional() }), "Updated"), ...errors(400, 401, 404) } }),
    async (c) => {
      const { slug } = c.req.valid("param");
      const { database_limit_bytes, storage_limit_bytes } = c.req.valid("json");
      if (database_limit_bytes !== undefined) await setDatabaseLimit(c.get("config"), slug, database_limit_bytes);
      if (storage_limit_bytes !== undefined) await setStorageLimit(c.get("config"), slug, storage_limit_bytes);
      return c.json({ slug, database_limit_bytes, storage_limit_bytes }, 200);
    },
  );
