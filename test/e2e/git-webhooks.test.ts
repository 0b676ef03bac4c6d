import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { newAccount, newProject, type TestAccount } from "./client.ts";
import { authedUrl, commitFiles, gitFor, tempDir } from "./git-cli.ts";

const { gitOk } = gitFor("2");
type Received = { headers: Record<string, string | string[] | undefined>; body: string };

describe("push events delivered to webhooks (at least once, signed)", () => {
  let owner: TestAccount;
  let project: any;
  let server: Server;
  let hookUrl: string;
  const received: Received[] = [];
  let failFirst = true;

  beforeAll(async () => {
    owner = await newAccount();
    project = await newProject(owner, "Hooks");
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        // The first delivery fails, so the queue has to retry it.
        if (failFirst) {
          failFirst = false;
          res.writeHead(503).end();
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function until<T>(what: () => T | undefined, label: string): Promise<T> {
    for (let i = 0; i < 300; i++) {
      const v = what();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`timed out waiting for ${label}`);
  }

  it("registers the platform webhook on the first file push, with an integer id", async () => {
    expect((await owner.api("GET", `/${project.slug}/git/webhooks`)).body.webhooks).toEqual([]);
    await owner.api("POST", `/${project.slug}/git/files`, { path: "a.txt", content: "YQ==", message: "first" });
    const hooks = (await owner.api("GET", `/${project.slug}/git/webhooks`)).body.webhooks;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ kind: "platform", url: null });
    expect(Number.isInteger(hooks[0].id)).toBe(true);
    await owner.api("POST", `/${project.slug}/git/files`, { path: "b.txt", content: "Yg==", message: "second" });
    expect((await owner.api("GET", `/${project.slug}/git/webhooks`)).body.webhooks).toHaveLength(1);
  });

  it("delivers a CLI push to a registered webhook with a valid signature and a delivery id, retrying a failure", async () => {
    const created = await owner.api("POST", `/${project.slug}/git/webhooks`, { url: hookUrl });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect((await owner.api("GET", `/${project.slug}/git/webhooks`)).body.webhooks.some((h: any) => "secret" in h)).toBe(false);

    const work = await tempDir();
    await gitOk(work, "clone", "-q", authedUrl(project.git_repo_url, owner.apiKey), "r");
    const tip = await commitFiles(join(work, "r"), "from the CLI", { "c.txt": "c\n" });
    const before = await gitOk(join(work, "r"), "rev-parse", "HEAD~1");
    await gitOk(join(work, "r"), "push", "-q", "origin", "main");

    const delivered = await until(() => (received.length >= 2 ? received : undefined), "a retried delivery");
    const [failed, ok] = delivered as [Received, Received];
    // The retry is the same delivery: same id, same body, same signature.
    expect(ok.headers["x-slipway-delivery"]).toBe(failed.headers["x-slipway-delivery"]);
    expect(ok.body).toBe(failed.body);
    const expected = `sha256=${createHmac("sha256", secret).update(ok.body).digest("hex")}`;
    expect(ok.headers["x-hub-signature-256"]).toBe(expected);
    expect(ok.headers["x-slipway-event"]).toBe("push");
    const payload = JSON.parse(ok.body);
    expect(payload).toMatchObject({ event: "push", ref: "refs/heads/main", before, after: tip, created: false, deleted: false, repository: { project_id: project.id, slug: project.slug } });
    expect(payload.delivery_id).toBe(ok.headers["x-slipway-delivery"]);
    expect(payload.source).toMatch(/^git:/);
  });

  it("delivers API pushes too, and stops delivering to a removed webhook", async () => {
    const count = received.length;
    const res = await owner.api("POST", `/${project.slug}/git/files`, { path: "d.txt", content: "ZA==", message: "api" });
    const delivery = await until(() => received.slice(count).find((r) => JSON.parse(r.body).after === res.body.commit), "the API push's delivery");
    expect(JSON.parse(delivery.body).source).toMatch(/^api:/);

    const hooks = (await owner.api("GET", `/${project.slug}/git/webhooks`)).body.webhooks;
    const user = hooks.find((h: any) => h.kind === "user");
    expect((await owner.api("DELETE", `/${project.slug}/git/webhooks/${user.id}`)).status).toBe(200);
    const platform = hooks.find((h: any) => h.kind === "platform");
    expect((await owner.api("DELETE", `/${project.slug}/git/webhooks/${platform.id}`)).status).toBe(404);
  });

  it("hides webhooks from another account", async () => {
    const stranger = await newAccount();
    expect((await stranger.api("GET", `/${project.slug}/git/webhooks`)).status).toBe(404);
    expect((await stranger.api("POST", `/${project.slug}/git/webhooks`, { url: "https://evil.example/x" })).status).toBe(404);
  });
});
