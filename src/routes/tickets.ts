import { createRoute, z } from "@hono/zod-openapi";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { createTicket, findTicket, listTickets } from "../tickets/tickets.ts";
import { notFound } from "../errors.ts";
import { isUuid } from "../platform/ids.ts";

// {base_url}: GET /tickets  POST /tickets  GET /tickets/{id}

const Ticket = z
  .object({
    id: z.string().uuid(), subject: z.string(), message: z.string(), project_id: z.string().uuid().nullable(),
    type: z.enum(["support", "feature_request"]), is_feature_request: z.boolean(), status: z.enum(["open", "answered"]),
    response: z.object({ message: z.string(), responded_at: z.string() }).nullable(), created_at: z.string(), updated_at: z.string(),
  })
  .openapi("Ticket");
const TicketBody = z.object({
  subject: z.string().trim().min(1, "subject is required").max(200).openapi({ description: 'Start with "Feature Request:" to file a feature request' }),
  message: z.string().trim().min(1, "message is required").max(20_000),
  project_id: z.string().uuid("project_id must be a project's UUID").nullable().optional(),
});

export const ticketRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/tickets", tags: ["Tickets"], summary: "Your tickets, newest first", security: ApiKeySecurity, responses: { 200: json(z.object({ tickets: z.array(Ticket) }), "Tickets"), ...errors(401) } }),
    async (c) => c.json({ tickets: await listTickets(c.get("config"), c.get("accountId")!) }, 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/tickets", tags: ["Tickets"], summary: "Open a support ticket or feature request", security: ApiKeySecurity, request: { body: jsonBody(TicketBody) }, responses: { 201: json(Ticket, "The ticket"), ...errors(400, 401, 404) } }),
    async (c) => c.json(await createTicket(c.get("config"), c.get("accountId")!, c.req.valid("json")), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/tickets/{id}", tags: ["Tickets"], summary: "A ticket with support's response", security: ApiKeySecurity, request: { params: z.object({ id: z.string() }) }, responses: { 200: json(Ticket, "The ticket"), ...errors(401, 404) } }),
    async (c) => {
      const { id } = c.req.valid("param");
      if (!isUuid(id)) throw notFound(`Ticket ${id} not found.`);
      return c.json(await findTicket(c.get("config"), c.get("accountId")!, id), 200);
    },
  );
