import type { EnvVars } from "../env.ts";
import { controlPlane } from "../platform/db.ts";
import { notFound } from "../errors.ts";

type TicketRow = {
  id: string;
  account_id: string;
  project_id: string | null;
  subject: string;
  message: string;
  kind: "support" | "feature_request";
  status: "open" | "answered";
  response: string | null;
  responded_at: string | null;
  created_at: string;
  updated_at: string;
};

const FEATURE_REQUEST_PREFIX = /^\s*feature request:/i;

/** A ticket as the API shows it: the support response, once given, is part of it. */
export function ticketView(t: TicketRow) {
  return {
    id: t.id,
    subject: t.subject,
    message: t.message,
    project_id: t.project_id,
    type: t.kind,
    is_feature_request: t.kind === "feature_request",
    status: t.status,
    response: t.response === null ? null : { message: t.response, responded_at: new Date(t.responded_at!).toISOString() },
    created_at: new Date(t.created_at).toISOString(),
    updated_at: new Date(t.updated_at).toISOString(),
  };
}
export type TicketView = ReturnType<typeof ticketView>;

/** Opens a ticket; a project, when named, must be the caller's own. */
export async function createTicket(config: EnvVars, accountId: string, input: { subject: string; message: string; project_id?: string | null }): Promise<TicketView> {
  const sql = controlPlane(config);
  if (input.project_id) {
    const owned = await sql.query(`select 1 from projects where id = $1 and account_id = $2`, [input.project_id, accountId]);
    if (!owned.length) throw notFound(`Project ${input.project_id} not found among your projects; omit project_id or use one from GET /v1/project/projects.`);
  }
  const kind = FEATURE_REQUEST_PREFIX.test(input.subject) ? "feature_request" : "support";
  const rows = (await sql.query(
    `insert into tickets (account_id, project_id, subject, message, kind) values ($1, $2, $3, $4, $5) returning *`,
    [accountId, input.project_id ?? null, input.subject, input.message, kind],
  )) as TicketRow[];
  return ticketView(rows[0]!);
}

export async function listTickets(config: EnvVars, accountId: string): Promise<TicketView[]> {
  const rows = (await controlPlane(config).query(`select * from tickets where account_id = $1 order by created_at desc`, [accountId])) as TicketRow[];
  return rows.map(ticketView);
}

export async function findTicket(config: EnvVars, accountId: string, id: string): Promise<TicketView> {
  const rows = (await controlPlane(config).query(`select * from tickets where id = $1 and account_id = $2`, [id, accountId])) as TicketRow[];
  if (!rows[0]) throw notFound(`Ticket ${id} not found.`);
  return ticketView(rows[0]);
}

/** Records support's answer (admin). */
export async function answerTicket(config: EnvVars, id: string, response: string): Promise<TicketView> {
  const rows = (await controlPlane(config).query(
    `update tickets set response = $2, status = 'answered', responded_at = now(), updated_at = now() where id = $1 returning *`,
    [id, response],
  )) as TicketRow[];
  if (!rows[0]) throw notFound(`Ticket ${id} not found.`);
  return ticketView(rows[0]);
}
