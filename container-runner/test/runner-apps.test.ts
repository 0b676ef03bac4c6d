import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallbackSink, controlJob, deployJob, gitRepo, readLogs, removeTemps, sendJob, startTestRunner, viaProxy } from "./helpers.ts";
import type { RunningRunner } from "../src/runner.ts";
import { ProcessBackend } from "../src/backends/process.ts";

let runner: RunningRunner;
let dataDir: string;
const sink = new CallbackSink();

beforeAll(async () => {
  await sink.start();
  ({ runner, dataDir } = await startTestRunner());
});
afterAll(async () => {
  await runner?.stop();
  await sink.stop();
  await removeTemps();
});

const NODE_APP = `
const http = require("node:http");
const fs = require("node:fs");
http.createServer((req, res) => {
  res.setHeader("Content-Type", "application/json");
  res.end(JSON.stringify({ hello: "node", path: req.url, database: process.env.DATABASE_URL, cwd: process.cwd(),
    seesRunnerData: fs.existsSync(process.env.RUNNER_DATA_PROBE), version: process.env.APP_VERSION }));
}).listen(Number(process.env.PORT), () => console.log("node app listening on " + process.env.PORT));
`;

describe("deploying apps from git", () => {
  it("serves a static index.html through the reverse proxy once the deploy reports running", async () => {
    const repo = await gitRepo({ "index.html": "<h1>static hello</h1>", "css/site.css": "h1{}" });
    const job = deployJob(sink, "static-site", repo.url);
    expect((await sendJob(runner.url, job)).status).toBe(202);
    const running = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(running.status).toBe("running");
    expect(running.stack).toBe("static");
    expect(running.url).toBe(`http://static-site.localhost:${runner.port}`);
    expect(sink.statuses(job.deployment_id)).toEqual(["building", "running"]);
    const page = await viaProxy(runner.port, "static-site", "/");
    expect(page).toEqual({ status: 200, body: "<h1>static hello</h1>" });
    expect((await viaProxy(runner.port, "static-site", "/css/site.css")).body).toBe("h1{}");
    expect((await viaProxy(runner.port, "static-site", "/missing")).status).toBe(404);
    expect(await readLogs(runner.url, job.deployment_id)).toMatch(/detected stack: static/);
  });

  it("runs a Node app with PORT and the project's DATABASE_URL, sandboxed away from the runner's files", async () => {
    const repo = await gitRepo({ "package.json": JSON.stringify({ name: "app", scripts: { start: "node server.js" } }), "server.js": NODE_APP });
    const job = deployJob(sink, "node-app", repo.url, { env: { DATABASE_URL: "postgresql://app:pw@db/app", RUNNER_DATA_PROBE: dataDir } });
    await sendJob(runner.url, job);
    expect((await sink.waitFor(job.deployment_id, ["running", "failed"])).status).toBe("running");
    const answer = JSON.parse((await viaProxy(runner.port, "node-app", "/hi?x=1")).body);
    expect(answer).toMatchObject({ hello: "node", path: "/hi?x=1", database: "postgresql://app:pw@db/app", cwd: "/app", seesRunnerData: false });
    const logs = await readLogs(runner.url, job.deployment_id);
    expect(logs).toMatch(/\[build\].*up to date|\[build\].*added/);
    expect(logs).toMatch(/\[app\] node app listening on \d+/);
    const backend = runner.backend as ProcessBackend;
    expect(await backend.memoryLimit(job.deployment_id)).toBe(512 * 1024 * 1024);
  });

  it("builds a Python app into a virtualenv and runs it", async () => {
    const repo = await gitRepo({
      "requirements.txt": "# no dependencies\n",
      "app.py": `import os\nfrom http.server import BaseHTTPRequestHandler, HTTPServer\nclass H(BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200); self.end_headers(); self.wfile.write(b"hello from python")\nprint("python listening", flush=True)\nHTTPServer(("0.0.0.0", int(os.environ["PORT"])), H).serve_forever()\n`,
    });
    const job = deployJob(sink, "py-app", repo.url);
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.status, result.detail).toBe("running");
    expect(result.stack).toBe("python");
    expect((await viaProxy(runner.port, "py-app")).body).toBe("hello from python");
  });

  it("builds a Rust app with cargo build --release and runs the binary", async () => {
    const repo = await gitRepo({
      "Cargo.toml": `[package]\nname = "hello-rs"\nversion = "0.1.0"\nedition = "2021"\n`,
      "src/main.rs": `use std::io::{Read, Write};\nfn main() {\n  let port = std::env::var("PORT").unwrap();\n  let l = std::net::TcpListener::bind(format!("0.0.0.0:{}", port)).unwrap();\n  for s in l.incoming() { let mut s = s.unwrap(); let mut b = [0u8; 1024]; let _ = s.read(&mut b); let _ = s.write_all(b"HTTP/1.1 200 OK\\r\\nContent-Length: 15\\r\\nConnection: close\\r\\n\\r\\nhello from rust"); }\n}\n`,
    });
    const job = deployJob(sink, "rust-app", repo.url);
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.status, result.detail).toBe("running");
    expect((await viaProxy(runner.port, "rust-app")).body).toBe("hello from rust");
  });

  it("fails a Go app with a clear reason when this runner has no Go toolchain", async () => {
    expect(runner.toolchains.go, "this test assumes a machine without Go").toBeUndefined();
    const repo = await gitRepo({ "go.mod": "module example.com/app\n\ngo 1.22\n", "main.go": "package main\nfunc main() {}\n" });
    const job = deployJob(sink, "go-app", repo.url);
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.status).toBe("failed");
    expect(result.detail).toMatch(/Go .* is not installed on this runner/);
  });

  it("reports a crashing app as failed, with its error in the logs", async () => {
    const repo = await gitRepo({ "package.json": JSON.stringify({ name: "crash", main: "index.js" }), "index.js": `console.error("boom: missing configuration"); process.exit(3);` });
    const job = deployJob(sink, "crash-app", repo.url);
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.status).toBe("failed");
    expect(result.detail).toMatch(/exited before it answered.*exit code 3/);
    expect(await readLogs(runner.url, job.deployment_id)).toMatch(/\[app\] boom: missing configuration/);
    expect((await viaProxy(runner.port, "crash-app")).status).toBe(503);
  });

  it("reports a failing build step with its exit code and keeps the build output", async () => {
    const repo = await gitRepo({ "package.json": JSON.stringify({ name: "badbuild", scripts: { build: "echo compiling && exit 7", start: "node x.js" } }) });
    const job = deployJob(sink, "bad-build", repo.url);
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.detail).toMatch(/`npm run build` failed with exit code 7/);
    expect(await readLogs(runner.url, job.deployment_id)).toMatch(/\[build\] compiling/);
  });

  it("fails with a readable reason when the branch does not exist", async () => {
    const repo = await gitRepo({ "index.html": "x" });
    const job = deployJob(sink, "no-branch", repo.url, { branch: "release" });
    await sendJob(runner.url, job);
    const result = await sink.waitFor(job.deployment_id, ["running", "failed"]);
    expect(result.status).toBe("failed");
    expect(result.detail).toMatch(/git clone failed: .*release/);
  });
});
