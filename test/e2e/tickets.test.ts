import { describe, expect, it } from "vitest";
import { admin, newAccount, newProject } from "./client.ts";

describe("support tickets", () => {
  it("opens a ticket, lists it, and shows support's response in the details", async () => {
    const account = await newAccount();
    const project = await newProject(account);
    const created = await account.api("POST", "/tickets", { subject: "Cannot connect", message: "psql times out", project_id: project.id });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ subject: "Cannot connect", project_id: project.id, type: "support", is_feature_request: false, status: "open", response: null });

    const list = await account.api("GET", "/tickets");
    expect(list.body.tickets.map((t: any) => t.id)).toEqual([created.body.id]);

    const answered = await admin("POST", `/tickets/${created.body.id}/response`, { response: "Use port 54320." });
    expect(answered.status).toBe(200);
    const details = await account.api("GET", `/tickets/${created.body.id}`);
    expect(details.status).toBe(200);
    expect(details.body.status).toBe("answered");
    expect(details.body.response.message).toBe("Use port 54320.");
    expect(Date.parse(details.body.response.responded_at)).not.toBeNaN();
  });

  it("marks a subject starting with Feature Request: as a feature request", async () => {
    const account = await newAccount();
    const reply = await account.api("POST", "/tickets", { subject: "Feature Request: branching", message: "Please" });
    expect(reply.status).toBe(201);
    expect(reply.body.type).toBe("feature_request");
    expect(reply.body.is_feature_request).toBe(true);
  });

  it("keeps tickets private to their account (other account) ", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const ticket = await owner.api("POST", "/tickets", { subject: "Secret subject", message: "secret message" });
    const peek = await other.api("GET", `/tickets/${ticket.body.id}`);
    expect(peek.status).toBe(404);
    expect(JSON.stringify(peek.body)).not.toContain("secret");
    expect((await other.api("GET", "/tickets")).body.tickets).toEqual([]);
  });

  it("refuses a project_id that is not the caller's with 404 and creates nothing", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const project = await newProject(owner);
    const reply = await other.api("POST", "/tickets", { subject: "Hi", message: "x", project_id: project.id });
    expect(reply.status).toBe(404);
    expect((await other.api("GET", "/tickets")).body.tickets).toEqual([]);
  });

  it("validates the body and ids", async () => {
    const account = await newAccount();
    expect((await account.api("POST", "/tickets", { subject: "", message: "x" })).status).toBe(400);
    expect((await account.api("POST", "/tickets", { subject: "s", message: "x", project_id: "nope" })).status).toBe(400);
    expect((await account.api("GET", "/tickets/not-a-uuid")).status).toBe(404);
    expect((await admin("POST", "/tickets/00000000-0000-0000-0000-000000000000/response", { response: "x" })).status).toBe(404);
  });
});
