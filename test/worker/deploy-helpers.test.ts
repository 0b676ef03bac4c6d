import { describe, expect, it } from "vitest";
import { chooseRepository } from "../../src/deploy/repo-url.ts";
import { retryDelaySeconds, DeployQueueMessage } from "../../src/deploy/queue-message.ts";
import { signRequest, verifyRequest } from "../../container-runner/src/signing.ts";
import { StatusReport } from "../../container-runner/src/protocol.ts";
import { loadConfig } from "../../src/env.ts";
import { env } from "cloudflare:workers";

const config = { ...loadConfig(env as unknown as Record<string, unknown>), GIT_ROOT: "http://127.0.0.1:8787/git" };

describe("which repository a deploy clones", () => {
  it("defaults to the project's own repository on the platform's git host", () => {
    expect(chooseRepository(config, "my-app", undefined)).toEqual({ repoUrl: "http://127.0.0.1:8787/git/my-app.git", external: false });
    expect(chooseRepository(config, "my-app", "http://127.0.0.1:8787/git/other.git")).toEqual({ repoUrl: "http://127.0.0.1:8787/git/other.git", external: false });
  });

  it("accepts a public https repository as external", () => {
    expect(chooseRepository(config, "my-app", "https://github.com/example/app.git")).toEqual({ repoUrl: "https://github.com/example/app.git", external: true });
  });

  it.each(["http://github.com/a.git", "ssh://git@github.com/a.git", "file:///etc/passwd", "https://127.0.0.1/a.git", "https://192.168.0.10/a.git", "https://169.254.169.254/a.git", "https://[fd00::1]/a.git", "https://intranet/a.git", "https://x.localhost/a.git", "https://u:p@github.com/a.git", "not a url"])(
    "refuses %s with 400",
    (url) => expect(() => chooseRepository(config, "my-app", url)).toThrow(/repo_url/),
  );
});

describe("hand-over retries", () => {
  it("backs off 2, 4, 8 … seconds, capped at a minute", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map(retryDelaySeconds)).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it("accepts only well-formed queue messages", () => {
    expect(DeployQueueMessage.safeParse({ job_id: "j", project_id: crypto.randomUUID(), slug: "a-b", action: "deploy", deployment_id: "d" }).success).toBe(true);
    expect(DeployQueueMessage.safeParse({ job_id: "j", project_id: "nope", slug: "a-b", action: "deploy", deployment_id: "d" }).success).toBe(false);
  });
});

describe("runner signatures inside workerd", () => {
  it("verifies what the runner signs and refuses a changed report", async () => {
    const report = JSON.stringify({ deployment_id: "d", project: "p", status: "running", at: new Date().toISOString(), seq: 5 });
    const headers = new Headers(await signRequest(config.RUNNER_SECRET, "POST", "/internal/runner/status", report));
    expect((await verifyRequest(config.RUNNER_SECRET, headers, "POST", "/internal/runner/status", report)).ok).toBe(true);
    expect((await verifyRequest(config.RUNNER_SECRET, headers, "POST", "/internal/runner/status", report.replace("running", "failed"))).ok).toBe(false);
    expect(StatusReport.parse(JSON.parse(report)).status).toBe("running");
  });
});
