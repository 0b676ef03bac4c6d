import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallbackSink, controlJob, deployJob, gitRepo, readLogs, removeTemps, sendJob, SECRET, startTestRunner, viaProxy } from "./helpers.ts";
import type { RunningRunner } from "../src/runner.ts";
import { signRequest } from "../src/signing.ts";

let runner: RunningRunner;
const sink = new CallbackSink();

beforeAll(async () => {
  await sink.start();
  ({ runner } = await startTestRunner());
});
afterAll(async () => {
  await runner?.stop();
  await sink.stop();
  await removeTemps();
});

/** A dependency-free Node app answering its version; `delayMs` before it listens. */
function versionedApp(version: string, delayMs = 0) {
  return {
    "package.json": JSON.stringify({ name: "v", main: "server.js" }),
    "server.js": `setTimeout(() => require("node:http").createServer((q, r) => r.end("${version}")).listen(Number(process.env.PORT)), ${delayMs});`,
  };
}

describe("the runner's job API", () => {
  it("refuses an unsigned job, a job signed with another secret, and a replayed request", async () => {
    const job = deployJob(sink, "auth-check", "file:///nonexistent");
    const unsigned = await fetch(`${runner.url}/v1/jobs`, { method: "POST", body: JSON.stringify(job) });
    expect(unsigned.status).toBe(401);
    expect((await sendJob(runner.url, job, "another-secret-another-secret-0000")).status).toBe(401);
    const body = JSON.stringify(controlJob(sink, "auth-check", "d1", "stop"));
    const headers = { ...(await signRequest(SECRET, "POST", "/v1/jobs", body)), "Content-Type": "application/json" };
    expect((await fetch(`${runner.url}/v1/jobs`, { method: "POST", headers, body })).status).toBe(202);
    const replay = await fetch(`${runner.url}/v1/jobs`, { method: "POST", headers, body });
    expect(replay.status).toBe(401);
    expect((await replay.json()).detail).toMatch(/already used/);
    expect(sink.statuses(job.deployment_id)).toEqual([]);
  });

  it("answers 400 naming the field for a malformed job, and accepts a repeated job id once", async () => {
    const bad = await sendJob(runner.url, { ...deployJob(sink, "x", "file:///x"), limits: { memory_mb: "lots" } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/limits\.memory_mb/);
    const job = controlJob(sink, "dup-check", "dup-1", "stop");
    expect((await sendJob(runner.url, job)).body).toEqual({ accepted: true, job_id: job.job_id });
    // A redelivery is signed afresh (a later timestamp), so only the job id repeats.
    expect((await sendJob(runner.url, job, SECRET, Date.now() + 2000)).body).toMatchObject({ accepted: true, duplicate: true });
    await sink.waitFor("dup-1", ["stopped"]);
    await runner.deployer.idle();
    expect(sink.statuses("dup-1")).toEqual(["stopped"]);
  });

  it("refuses an outside repo_url that is not https or points at a private address", async () => {
    for (const url of ["http://example.com/a.git", "https://127.0.0.1/a.git", "https://10.1.2.3/a.git", "file:///etc"]) {
      const job = deployJob(sink, "outside", url, { external: true });
      await sendJob(runner.url, job);
      const result = await sink.waitFor(job.deployment_id, ["failed", "running"]);
      expect(result.detail).toMatch(/Cannot deploy from this repository: repo_url must/);
    }
  });
});

describe("stop, start, restart and destroy", () => {
  it("stops, starts and restarts the current deployment, then destroys it", async () => {
    const repo = await gitRepo(versionedApp("one"));
    const job = deployJob(sink, "life", repo.url);
    await sendJob(runner.url, job);
    expect((await sink.waitFor(job.deployment_id, ["running", "failed"])).status).toBe("running");
    const id = job.deployment_id;

    let seen = sink.statuses(id).length;
    await sendJob(runner.url, controlJob(sink, "life", id, "stop"));
    expect((await sink.waitFor(id, ["stopped"], { after: seen })).status).toBe("stopped");
    expect((await viaProxy(runner.port, "life")).status).toBe(503);

    seen = sink.statuses(id).length;
    await sendJob(runner.url, controlJob(sink, "life", id, "start"));
    expect((await sink.waitFor(id, ["running", "failed"], { after: seen })).status).toBe("running");
    expect((await viaProxy(runner.port, "life")).body).toBe("one");

    seen = sink.statuses(id).length;
    await sendJob(runner.url, controlJob(sink, "life", id, "restart"));
    expect((await sink.waitFor(id, ["running", "failed"], { after: seen })).status).toBe("running");
    expect((await viaProxy(runner.port, "life")).body).toBe("one");
    expect(await readLogs(runner.url, id)).toMatch(/restarting/);

    seen = sink.statuses(id).length;
    await sendJob(runner.url, controlJob(sink, "life", id, "destroy"));
    expect((await sink.waitFor(id, ["destroyed"], { after: seen })).status).toBe("destroyed");
    expect((await viaProxy(runner.port, "life")).status).toBe(503);

    seen = sink.statuses(id).length;
    await sendJob(runner.url, controlJob(sink, "life", id, "start"));
    expect((await sink.waitFor(id, ["running", "failed"], { after: seen })).detail).toMatch(/deploy again/);
  });

  it("keeps the old version serving while a redeploy builds, then switches and retires it", async () => {
    const repo = await gitRepo(versionedApp("v1"));
    const first = deployJob(sink, "swap", repo.url);
    await sendJob(runner.url, first);
    expect((await sink.waitFor(first.deployment_id, ["running", "failed"])).status).toBe("running");

    repo.commit(versionedApp("v2", 1500));
    const second = deployJob(sink, "swap", repo.url);
    await sendJob(runner.url, second);
    await sink.waitFor(second.deployment_id, ["building"]);
    const during: string[] = [];
    while (!sink.statuses(second.deployment_id).some((s) => s === "running" || s === "failed")) {
      const answer = await viaProxy(runner.port, "swap");
      during.push(`${answer.status} ${answer.body}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sink.last(second.deployment_id)!.status).toBe("running");
    // Every request was answered: v1 while v2 built and started, then v2, never back.
    const firstV2 = during.indexOf("200 v2");
    const before = firstV2 < 0 ? during : during.slice(0, firstV2);
    expect(before.length).toBeGreaterThan(3);
    expect(new Set(before)).toEqual(new Set(["200 v1"]));
    if (firstV2 >= 0) expect(new Set(during.slice(firstV2))).toEqual(new Set(["200 v2"]));
    expect((await viaProxy(runner.port, "swap")).body).toBe("v2");
    expect((await sink.waitFor(first.deployment_id, ["superseded"])).detail).toContain(second.deployment_id);
  });

  it("keeps the old version when a redeploy fails", async () => {
    const repo = await gitRepo(versionedApp("good"));
    const first = deployJob(sink, "keep", repo.url);
    await sendJob(runner.url, first);
    await sink.waitFor(first.deployment_id, ["running"]);
    repo.commit({ "server.js": "process.exit(1)" });
    const second = deployJob(sink, "keep", repo.url);
    await sendJob(runner.url, second);
    expect((await sink.waitFor(second.deployment_id, ["running", "failed"])).status).toBe("failed");
    expect((await viaProxy(runner.port, "keep")).body).toBe("good");
    expect(sink.statuses(first.deployment_id)).toEqual(["building", "running"]);
  });

  it("lets a new deploy supersede one still building", async () => {
    const slow = await gitRepo({ "package.json": JSON.stringify({ name: "slow", main: "s.js", scripts: { build: "sleep 30" } }), "s.js": "" });
    const fast = await gitRepo(versionedApp("fast"));
    const first = deployJob(sink, "race", slow.url);
    await sendJob(runner.url, first);
    await sink.waitFor(first.deployment_id, ["building"]);
    const second = deployJob(sink, "race", fast.url);
    await sendJob(runner.url, second);
    expect((await sink.waitFor(first.deployment_id, ["superseded", "failed", "running"])).status).toBe("superseded");
    expect((await sink.waitFor(second.deployment_id, ["running", "failed"])).status).toBe("running");
    expect((await viaProxy(runner.port, "race")).body).toBe("fast");
  });

  it("reports a running app that crashes later as failed, and start brings it back", async () => {
    const repo = await gitRepo({ "package.json": JSON.stringify({ name: "c", main: "s.js" }), "s.js": `require("node:http").createServer((q, r) => { r.end("up"); if (q.url === "/die") { console.error("dying on request"); process.exit(9); } }).listen(Number(process.env.PORT));` });
    const job = deployJob(sink, "crash-later", repo.url);
    await sendJob(runner.url, job);
    await sink.waitFor(job.deployment_id, ["running"]);
    const seen = sink.statuses(job.deployment_id).length;
    await viaProxy(runner.port, "crash-later", "/die").catch(() => {});
    const failed = await sink.waitFor(job.deployment_id, ["failed"], { after: seen });
    expect(failed.detail).toMatch(/exit code 9/);
    await sendJob(runner.url, controlJob(sink, "crash-later", job.deployment_id, "start"));
    await sink.waitFor(job.deployment_id, ["running"], { after: seen + 1 });
    expect((await viaProxy(runner.port, "crash-later")).body).toBe("up");
  });
});

describe("deployment logs", () => {
  it("follows a deployment's log live until it is closed", async () => {
    const repo = await gitRepo({ "package.json": JSON.stringify({ name: "f", main: "s.js" }), "s.js": "console.log('about to fail'); process.exit(2)" });
    const job = deployJob(sink, "follow", repo.url);
    await sendJob(runner.url, job);
    await sink.waitFor(job.deployment_id, ["building"]);
    const path = `/v1/deployments/${job.deployment_id}/logs?follow=1`;
    const res = await fetch(`${runner.url}${path}`, { headers: await signRequest(SECRET, "GET", path, "") });
    expect(res.status).toBe(200);
    const text = await res.text(); // ends only when the deployment's log is closed (it fails)
    expect(text).toMatch(/cloning/);
    expect(text).toMatch(/\[app\] about to fail/);
    expect(text).toMatch(/status: failed/);
  });

  it("answers 404 for logs of an unknown deployment and 401 without a signature", async () => {
    const path = "/v1/deployments/nope/logs";
    expect((await fetch(`${runner.url}${path}`, { headers: await signRequest(SECRET, "GET", path, "") })).status).toBe(404);
    expect((await fetch(`${runner.url}${path}`)).status).toBe(401);
  });
});
