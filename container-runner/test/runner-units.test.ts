import { describe, expect, it } from "vitest";
import { signRequest, verifyRequest, ReplayGuard } from "../src/signing.ts";
import { isPrivateAddress, checkRepoUrl } from "../src/repo-url-policy.ts";
import { slugFromHost } from "../src/proxy.ts";
import { bwrapArgs } from "../src/backends/sandbox.ts";
import { redact } from "../src/clone.ts";
import { RunnerJob } from "../src/protocol.ts";

const SECRET = "unit-secret-unit-secret-unit-secret";
const headersOf = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });

describe("request signing", () => {
  it("accepts a request signed with the shared secret within the window", async () => {
    const h = await signRequest(SECRET, "POST", "/v1/jobs", '{"a":1}', 1_000_000_000);
    expect(await verifyRequest(SECRET, headersOf(h), "POST", "/v1/jobs", '{"a":1}', { nowMs: 1_000_060_000 })).toMatchObject({ ok: true });
  });

  it("refuses a changed body, path, method or secret", async () => {
    const h = await signRequest(SECRET, "POST", "/v1/jobs", '{"a":1}', 1_000_000_000);
    const at = { nowMs: 1_000_000_000 };
    expect((await verifyRequest(SECRET, headersOf(h), "POST", "/v1/jobs", '{"a":2}', at)).ok).toBe(false);
    expect((await verifyRequest(SECRET, headersOf(h), "POST", "/v1/other", '{"a":1}', at)).ok).toBe(false);
    expect((await verifyRequest(SECRET, headersOf(h), "PUT", "/v1/jobs", '{"a":1}', at)).ok).toBe(false);
    expect((await verifyRequest(`${SECRET}x`, headersOf(h), "POST", "/v1/jobs", '{"a":1}', at)).ok).toBe(false);
  });

  it("refuses a request outside the replay window or without headers", async () => {
    const h = await signRequest(SECRET, "GET", "/x", "", 1_000_000_000);
    expect(await verifyRequest(SECRET, headersOf(h), "GET", "/x", "", { nowMs: 1_000_301_000 })).toEqual({ ok: false, reason: "timestamp outside the replay window" });
    expect(await verifyRequest(SECRET, headersOf({}), "GET", "/x", "")).toEqual({ ok: false, reason: "missing signature headers" });
  });

  it("lets a signature be used once", () => {
    const guard = new ReplayGuard();
    expect(guard.firstUse("v1=abc", 1000)).toBe(true);
    expect(guard.firstUse("v1=abc", 2000)).toBe(false);
    expect(guard.firstUse("v1=def", 2000)).toBe(true);
  });
});

describe("repository address policy", () => {
  it("classifies loopback, private, link-local and mapped addresses as private", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1"]) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["140.82.112.3", "8.8.8.8", "2606:4700::1111", "172.32.0.1"]) expect(isPrivateAddress(a), a).toBe(false);
  });

  it("lets the platform's own git host through and holds outside URLs to https and public addresses", async () => {
    const platformHosts = ["127.0.0.1:8787"];
    expect(await checkRepoUrl("http://127.0.0.1:8787/git/app.git", { external: false, platformHosts })).toBeNull();
    expect(await checkRepoUrl("http://127.0.0.1:8787/git/app.git", { external: true, platformHosts })).toBeNull();
    expect(await checkRepoUrl("http://example.com/a.git", { external: true, platformHosts })).toMatch(/https/);
    expect(await checkRepoUrl("https://user:pw@93.184.215.14/a.git", { external: true, platformHosts })).toMatch(/credentials/);
    expect(await checkRepoUrl("https://localhost/a.git", { external: true, platformHosts })).toMatch(/this machine/);
    expect(await checkRepoUrl("https://[::1]/a.git", { external: true, platformHosts })).toMatch(/public address/);
    expect(await checkRepoUrl("https://93.184.215.14/a.git", { external: true, platformHosts })).toBeNull();
  });

  it("keeps credentials out of logged URLs", () => {
    expect(redact("fatal: could not read https://x-token:s3cret@git.example/app.git")).toBe("fatal: could not read https://***@git.example/app.git");
  });
});

describe("reverse proxy host names", () => {
  it("maps <slug>.<apps domain>[:port] to the slug and ignores other hosts", () => {
    expect(slugFromHost("my-app.localhost:8790", "localhost")).toBe("my-app");
    expect(slugFromHost("My-App.slipway.app", "slipway.app")).toBe("my-app");
    expect(slugFromHost("127.0.0.1:8790", "localhost")).toBeNull();
    expect(slugFromHost("a.b.localhost", "localhost")).toBeNull();
    expect(slugFromHost(undefined, "localhost")).toBeNull();
  });
});

describe("bubblewrap arguments", () => {
  it("binds the system read-only, the app and cache writable, clears the environment and runs the argv last", () => {
    const args = bwrapArgs({ dir: "/data/apps/p/d1", cacheDir: "/data/cache/p", readOnly: ["/opt/node", "/opt/node/bin", "/usr/lib/node_modules/npm"], env: { PORT: "5000" }, argv: ["node", "server.js"] });
    const text = args.join(" ");
    expect(text).toContain("--ro-bind /usr /usr");
    expect(text).toContain("--ro-bind /opt/node /opt/node");
    expect(text).not.toContain("/opt/node/bin /opt/node/bin");
    expect(text).not.toContain("/usr/lib/node_modules/npm /usr/lib/node_modules/npm");
    expect(text).toContain("--bind /data/apps/p/d1 /app --bind /data/cache/p /cache --chdir /app");
    expect(text).toContain("--unshare-pid");
    expect(text).toContain("--die-with-parent");
    expect(args.indexOf("--clearenv")).toBeLessThan(args.indexOf("--setenv"));
    expect(args.slice(-3)).toEqual(["--", "node", "server.js"]);
  });

  it("binds a toolchain that lives under /tmp after the private /tmp, so it stays visible", () => {
    const args = bwrapArgs({ dir: "/tmp/x/app", cacheDir: "/tmp/x/cache", readOnly: ["/tmp/checkout/node_modules/node/bin"], env: {}, argv: ["node"] });
    expect(args.indexOf("/tmp/checkout/node_modules/node/bin")).toBeGreaterThan(args.indexOf("--tmpfs"));
  });
});

describe("job messages", () => {
  it("parses a deploy job with defaults and rejects unknown actions", () => {
    const job = RunnerJob.parse({ job_id: "j", action: "deploy", project: "my-app", deployment_id: "d", callback_url: "http://w/cb", repo_url: "https://x/y.git", branch: "main", limits: { memory_mb: 512, cpus: 0.5 } });
    expect(job).toMatchObject({ external: false, env: {} });
    expect(RunnerJob.safeParse({ job_id: "j", action: "explode", project: "my-app", deployment_id: "d", callback_url: "http://w/cb" }).success).toBe(false);
    expect(RunnerJob.safeParse({ job_id: "j", action: "deploy", project: "my-app", deployment_id: "d", callback_url: "http://w/cb", repo_url: "x", branch: "a b", limits: { memory_mb: 512, cpus: 1 } }).success).toBe(false);
  });
});
