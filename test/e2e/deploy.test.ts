import { describe, expect, it } from "vitest";
import { newAccount, newProject, type TestAccount } from "./client.ts";

/** Polls the deployment status until it is one of `statuses` (the client's way, per the interface). */
export async function waitForStatus(account: TestAccount, slug: string, statuses: string[], timeoutMs = 150_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    last = await account.api("GET", `/${slug}/deploy/status`);
    if (last.status === 200 && statuses.includes(last.body.status)) return last.body;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`status never reached ${statuses.join("/")}: ${JSON.stringify(last?.body)}`);
}

describe("deployments: the API around them", () => {
  it("has no status before the first deploy, and an empty history", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    const status = await account.api("GET", `/${slug}/deploy/status`);
    expect(status.status).toBe(404);
    expect(status.body.detail).toMatch(/no deployment yet/);
    expect((await account.api("GET", `/${slug}/deploy/history`)).body).toEqual({ deployments: [] });
    for (const action of ["stop", "start", "restart"]) expect((await account.api("POST", `/${slug}/${action}`)).status).toBe(404);
    expect((await account.api("DELETE", `/${slug}/deploy`)).status).toBe(404);
  });

  it("refuses outside repo_urls that are not public https addresses, and writes nothing", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    for (const repo_url of ["http://github.com/a/b.git", "git@github.com:a/b.git", "file:///etc", "https://127.0.0.1/x.git", "https://10.0.0.5/x.git", "https://localhost/x.git", "https://user:token@github.com/a/b.git", "https://[::1]/x.git"]) {
      const reply = await account.api("POST", `/${slug}/deploy`, { repo_url });
      expect(reply.status, repo_url).toBe(400);
      expect(reply.body.detail).toMatch(/repo_url/);
    }
    expect((await account.api("POST", `/${slug}/deploy`, { branch: "bad branch" })).status).toBe(400);
    expect((await account.api("GET", `/${slug}/deploy/history`)).body.deployments).toEqual([]);
  });

  it("runs a deploy through the queue and the runner to failed with the clone error, in status, history and logs", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    // The project's own repository has no main branch yet: the clone fails.
    const started = await account.api("POST", `/${slug}/deploy`, {});
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: "pending", trigger: "manual", branch: "main", url: expect.stringContaining(`${slug}.localhost`) });
    const failed = await waitForStatus(account, slug, ["failed", "running"]);
    expect(failed.status).toBe("failed");
    expect(failed.deployment_id).toBe(started.body.deployment_id);
    expect(failed.detail).toMatch(/git clone failed/);
    const history = await account.api("GET", `/${slug}/deploy/history?limit=5`);
    expect(history.body.deployments).toHaveLength(1);
    expect(history.body.deployments[0]).toMatchObject({ deployment_id: started.body.deployment_id, trigger: "manual", status: "failed" });
    const logs = await account.api("GET", `/${slug}/deploy/logs`);
    expect(logs.status).toBe(200);
    expect(logs.body.deployment_id).toBe(started.body.deployment_id);
    // The clone carries the account's key to the platform's git host; it never reaches the logs.
    expect(logs.body.logs).toMatch(/\[runner\] cloning http:\/\/\*\*\*@127\.0\.0\.1:\d+\/git\//);
    expect(logs.body.logs).not.toContain(account.apiKey);
    expect(logs.body.logs).toMatch(/status: failed/);
  });

  it("PATCH /settings turns auto_deploy off and keeps app variables secret", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    expect((await account.api("GET", `/${slug}/settings`)).body).toEqual({ auto_deploy: false, git_webhook_id: null, env: [] });
    const patched = await account.api("PATCH", `/${slug}/settings`, { auto_deploy: false, env: { API_TOKEN: "s3cret", MODE: "prod" } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ auto_deploy: false, git_webhook_id: null, env: ["API_TOKEN", "MODE"] });
    expect(JSON.stringify(patched.body)).not.toContain("s3cret");
    expect((await account.api("PATCH", `/${slug}/settings`, { env: { MODE: null } })).body.env).toEqual(["API_TOKEN"]);
    expect((await account.api("PATCH", `/${slug}/settings`, { env: { PORT: "1" } })).status).toBe(400);
    expect((await account.api("PATCH", `/${slug}/settings`, { auto_deploy: "yes" })).status).toBe(400);
    expect((await account.api("GET", `/${slug}/settings`)).body.auto_deploy).toBe(false);
  });

  it("shows another account's deployments, settings and logs as 404 with none of their data", async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const { slug } = await newProject(owner);
    const started = await owner.api("POST", `/${slug}/deploy`, {});
    for (const [method, path] of [["GET", "/deploy/status"], ["GET", "/deploy/history"], ["GET", "/deploy/logs"], ["GET", "/settings"], ["PATCH", "/settings"], ["POST", "/deploy"], ["DELETE", "/deploy"], ["POST", "/stop"], ["POST", "/start"], ["POST", "/restart"]]) {
      const reply = await other.api(method, `/${slug}${path}`, method === "PATCH" ? { auto_deploy: false } : method === "POST" ? {} : undefined);
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain(started.body.deployment_id);
    }
    expect((await owner.api("GET", `/${slug}/deploy/status`)).body.deployment_id).toBe(started.body.deployment_id);
  });

  it("refuses status reports that the runner did not sign", async () => {
    const res = await fetch(`${(await import("./client.ts")).apiRoot}/internal/runner/status`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ deployment_id: "x", project: "x", status: "running", at: "", seq: 1 }) });
    expect(res.status).toBe(401);
  });
});
