// A stand-in for the Neon API (console.neon.tech/api/v2), which this machine cannot
// reach: POST /projects makes a role and database on the local server and answers in
// Neon's shape; DELETE /projects/{id} removes them. It records every request it saw.
import { createServer, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import pg from "pg";

export type FakeNeonApi = { url: string; requests: { method: string; path: string; body: any; auth: string | undefined }[]; stop(): Promise<void> };

export async function startFakeNeonApi(opts: { superuserUrl: string; apiKey: string }): Promise<FakeNeonApi> {
  const server = new URL(opts.superuserUrl);
  const projects = new Map<string, { database: string; role: string }>();
  const requests: FakeNeonApi["requests"] = [];
  const admin = async (sql: string[]) => {
    const client = new pg.Client({ connectionString: opts.superuserUrl });
    await client.connect();
    try {
      for (const statement of sql) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const http: Server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : null;
    requests.push({ method: req.method!, path: req.url!, body, auth: req.headers.authorization });
    const reply = (status: number, value: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(value));
    if (req.headers.authorization !== `Bearer ${opts.apiKey}`) return reply(401, { code: "", message: "authentication required" });
    if (req.method === "POST" && req.url === "/projects") {
      const { database_name: database, role_name: role } = body.project.branch;
      const password = randomBytes(16).toString("hex");
      await admin([`create role "${role}" login password '${password}'`, `create database "${database}" owner "${role}"`, `revoke all on database "${database}" from public`]);
      const id = `fake-${randomBytes(6).toString("hex")}`;
      projects.set(id, { database, role });
      const uri = `postgresql://${role}:${password}@${server.hostname}:${server.port}/${database}?sslmode=require`;
      return reply(201, {
        project: { id, name: body.project.name, pg_version: body.project.pg_version },
        connection_uris: [{ connection_uri: uri, connection_parameters: { database, role, password, host: server.hostname, pooler_host: server.hostname } }],
        operations: [],
      });
    }
    const match = req.url?.match(/^\/projects\/([\w-]+)$/);
    if (req.method === "DELETE" && match && projects.has(match[1]!)) {
      const { database, role } = projects.get(match[1]!)!;
      await admin([`drop database if exists "${database}" with (force)`, `drop role if exists "${role}"`]);
      projects.delete(match[1]!);
      return reply(200, { project: { id: match[1] } });
    }
    return reply(404, { code: "", message: "not found" });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, requests, stop: () => new Promise((resolve) => http.close(() => resolve())) };
}
