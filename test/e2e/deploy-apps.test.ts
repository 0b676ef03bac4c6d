import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { newAccount, newProject, type TestAccount } from "./client.ts";
import { authedUrl, gitOk, tempDir, writeFiles } from "./git-cli.ts";
import { waitForStatus } from "./deploy.test.ts";

const runnerPort = inject("runnerPort");
const runnerUrl = inject("runnerUrl");
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** GET through the runner's reverse proxy, as a browser at http://<slug>.localhost:<port> would. */
function appGet(slug: string, path = "/"): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: runnerPort, path, headers: { Host: `${slug}.localhost:${runnerPort}` } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Commits files through the API; the last one carries deploy true. Returns the push answer. */
async function pushFiles(account: TestAccount, slug: string, files: Record<string, string>, deploy = true): Promise<any> {
  const entries = Object.entries(files);
  let last: any;
  for (const [i, [path, content]] of entries.entries()) {
    last = await account.api("POST", `/${slug}/git/files`, { path, content: b64(content), message: `add ${path}`, deploy: deploy && i === entries.length - 1 });
    expect(last.status).toBe(201);
  }
  return last.body;
}

const NODE_APP = {
  "package.json": JSON.stringify({ name: "hello", scripts: { start: "node server.js" } }),
  "server.js": `require("node:http").createServer((q, r) => r.end("node says hi; db " + (process.env.DATABASE_URL ? "set" : "missing"))).listen(Number(process.env.PORT));`,
};

describe("deploying from the project's repository (owner)", () => {
  it("serves a static index.html pushed with deploy true at the app URL once status reads running", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    const pushed = await pushFiles(account, slug, { "index.html": "<h1>Hello from Slipway</h1>" });
    expect(pushed.deploy).toMatchObject({ status: "pending", url: `http://${slug}.localhost:${runnerPort}` });
    const running = await waitForStatus(account, slug, ["running", "failed"]);
    expect(running).toMatchObject({ status: "running", deployment_id: pushed.deploy.deployment_id, stack: "static", commit: pushed.commit, trigger: "manual" });
    expect(await appGet(slug)).toEqual({ status: 200, body: "<h1>Hello from Slipway</h1>" });
    const settings = await account.api("GET", `/${slug}/settings`);
    expect(settings.body).toMatchObject({ auto_deploy: true, git_webhook_id: expect.any(Number) });
  });

  it("runs a Node app without dependencies with the project's DATABASE_URL, then stops, starts, restarts and destroys it", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    await pushFiles(account, slug, NODE_APP);
    expect((await waitForStatus(account, slug, ["running", "failed"])).status).toBe("running");
    expect((await appGet(slug)).body).toBe("node says hi; db set");

    const stop = await account.api("POST", `/${slug}/stop`);
    expect(stop.status).toBe(202);
    expect((await waitForStatus(account, slug, ["stopped"])).status).toBe("stopped");
    expect((await appGet(slug)).status).toBe(503);
    expect((await account.api("POST", `/${slug}/stop`)).status).toBe(409);

    expect((await account.api("POST", `/${slug}/start`)).status).toBe(202);
    expect((await waitForStatus(account, slug, ["running"])).status).toBe("running");
    expect((await appGet(slug)).body).toBe("node says hi; db set");

    const before = (await account.api("GET", `/${slug}/deploy/status`)).body.updated_at;
    expect((await account.api("POST", `/${slug}/restart`)).status).toBe(202);
    // The runner stops and starts the app, then reports running again.
    let after = before;
    for (let i = 0; i < 300 && after === before; i++) after = (await new Promise((r) => setTimeout(r, 200)), (await account.api("GET", `/${slug}/deploy/status`)).body.updated_at);
    expect((await waitForStatus(account, slug, ["running"])).updated_at).not.toBe(before);
    const logs = await account.api("GET", `/${slug}/deploy/logs`);
    expect(logs.body.logs).toMatch(/restarting/);
    expect((await appGet(slug)).body).toBe("node says hi; db set");

    const destroyed = await account.api("DELETE", `/${slug}/deploy`);
    expect(destroyed.status).toBe(200);
    expect(destroyed.body.destroyed).toBe(true);
    expect((await account.api("GET", `/${slug}/deploy/status`)).body.status).toBe("destroyed");
    let answer = await appGet(slug);
    for (let i = 0; i < 50 && answer.status !== 503; i++) answer = (await new Promise((r) => setTimeout(r, 200)), await appGet(slug));
    expect(answer.status).toBe(503);
    expect((await account.api("POST", `/${slug}/start`)).status).toBe(404);
  });

  it("builds and runs a Python and a Rust app, and fails a Go app with a clear reason on this machine without Go", async () => {
    const account = await newAccount({ plan: "pro" });
    const python = (await newProject(account, "Py")).slug;
    const rust = (await newProject(account, "Rs")).slug;
    const go = (await newProject(account, "Go")).slug;
    await pushFiles(account, python, {
      "requirements.txt": "\n",
      "app.py": `import os\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\nclass H(BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200); self.end_headers(); self.wfile.write(b"python here")\nHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()\n`,
    });
    await pushFiles(account, rust, {
      "Cargo.toml": `[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n`,
      "src/main.rs": `use std::io::{Read, Write};\nfn main() {\n  let l = std::net::TcpListener::bind(format!("0.0.0.0:{}", std::env::var("PORT").unwrap())).unwrap();\n  for s in l.incoming() { let mut s = s.unwrap(); let mut b = [0u8; 1024]; let _ = s.read(&mut b); let _ = s.write_all(b"HTTP/1.1 200 OK\\r\\nContent-Length: 9\\r\\nConnection: close\\r\\n\\r\\nrust here"); }\n}\n`,
    });
    await pushFiles(account, go, { "go.mod": "module example.com/hello\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n" });
    expect((await waitForStatus(account, python, ["running", "failed"])).status).toBe("running");
    expect((await appGet(python)).body).toBe("python here");
    expect((await waitForStatus(account, rust, ["running", "failed"])).status).toBe("running");
    expect((await appGet(rust)).body).toBe("rust here");
    const goStatus = await waitForStatus(account, go, ["running", "failed"]);
    expect(goStatus.status).toBe("failed");
    expect(goStatus.detail).toMatch(/Go .*not installed on this runner/);
  });

  it("ends a crashing app failed, with the app's error in the logs", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    await pushFiles(account, slug, { "package.json": JSON.stringify({ name: "crash", main: "index.js" }), "index.js": `console.error("FATAL: cannot find config.json"); process.exit(1);` });
    const failed = await waitForStatus(account, slug, ["running", "failed"]);
    expect(failed.status).toBe("failed");
    expect(failed.detail).toMatch(/exited before it answered/);
    const logs = await account.api("GET", `/${slug}/deploy/logs`);
    expect(logs.body.logs).toMatch(/\[app\] FATAL: cannot find config\.json/);
    // Following the logs of a settled deployment returns them all and ends.
    const followed = await fetch(`${(await import("./client.ts")).BASE}/${slug}/deploy/logs?follow=true`, { headers: { "X-API-Key": account.apiKey } });
    expect(followed.headers.get("content-type")).toMatch(/text\/plain/);
    expect(await followed.text()).toMatch(/FATAL: cannot find config\.json/);
  });
});

describe("auto-deploy on git push (owner with the git CLI)", () => {
  it("deploys a CLI push marked webhook in history, and stops deploying once auto_deploy is off", async () => {
    const account = await newAccount();
    const project = await newProject(account);
    const slug = project.slug;
    await pushFiles(account, slug, { "index.html": "v1" });
    const first = await waitForStatus(account, slug, ["running", "failed"]);
    expect(first.status).toBe("running");

    const work = await tempDir("deploy-push");
    await gitOk(work, "clone", "-q", authedUrl(project.git_repo_url, account.apiKey), "app");
    const dir = join(work, "app");
    await writeFiles(dir, { "index.html": "v2 from git push" });
    await gitOk(dir, "commit", "-qam", "v2");
    await gitOk(dir, "push", "-q", "origin", "main");
    const pushedCommit = await gitOk(dir, "rev-parse", "HEAD");

    let status = await waitForStatus(account, slug, ["running", "failed"]);
    for (let i = 0; i < 200 && status.commit !== pushedCommit; i++) {
      await new Promise((r) => setTimeout(r, 300));
      status = (await account.api("GET", `/${slug}/deploy/status`)).body;
    }
    expect(status).toMatchObject({ status: "running", trigger: "webhook", commit: pushedCommit });
    expect((await appGet(slug)).body).toBe("v2 from git push");
    const history = (await account.api("GET", `/${slug}/deploy/history`)).body.deployments;
    expect(history.map((d: any) => d.trigger)).toEqual(["webhook", "manual"]);
    expect(history[1]).toMatchObject({ deployment_id: first.deployment_id, status: "superseded" });

    expect((await account.api("PATCH", `/${slug}/settings`, { auto_deploy: false })).body.auto_deploy).toBe(false);
    await writeFiles(dir, { "index.html": "v3 not deployed" });
    await gitOk(dir, "commit", "-qam", "v3");
    await gitOk(dir, "push", "-q", "origin", "main");
    // The push event is handled within seconds; give it time, then nothing new exists.
    const marker = await pushFiles(account, slug, { "marker.txt": "after v3" }, false);
    expect(marker.pushed).toBe(true);
    await new Promise((r) => setTimeout(r, 4000));
    expect((await account.api("GET", `/${slug}/deploy/history`)).body.deployments).toHaveLength(2);
    expect((await appGet(slug)).body).toBe("v2 from git push");
  });
});

describe("a container-runner that dies", () => {
  it("leaves no deployment stuck in building when the runner is killed mid-build, and the next deploy works", async () => {
    const account = await newAccount();
    const { slug } = await newProject(account);
    await pushFiles(account, slug, { "package.json": JSON.stringify({ name: "slow", main: "s.js", scripts: { build: "sleep 120" } }), "s.js": "" });
    await waitForStatus(account, slug, ["building"]);
    const { pid } = await (await fetch(`${runnerUrl}/health`)).json();
    process.kill(pid, "SIGKILL");
    const failed = await waitForStatus(account, slug, ["failed", "running"], 90_000);
    expect(failed.status).toBe("failed");
    expect(failed.detail).toMatch(/stopped reporting/);
    // The supervisor restarts the runner; a new deploy goes through.
    await pushFiles(account, slug, { "package.json": JSON.stringify({ name: "fast", main: "s.js" }), "s.js": `require("node:http").createServer((q, r) => r.end("back")).listen(Number(process.env.PORT));` });
    expect((await waitForStatus(account, slug, ["running", "failed"], 90_000)).status).toBe("running");
    expect((await appGet(slug)).body).toBe("back");
  });
});
