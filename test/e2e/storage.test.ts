import { execFile } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { admin, newAccount, newProject, type TestAccount } from "./client.ts";

const run = promisify(execFile);
const s3 = inject("s3");
const BOTO3 = new URL("./fixtures/boto3-presign.py", import.meta.url).pathname;

/** PUTs a file with the real curl CLI; returns the status code and body. */
async function curlPut(url: string, file: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const args = ["-s", "-X", "PUT", "--data-binary", `@${file}`, "-w", "\n%{http_code}"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const { stdout } = await run("curl", [...args, url]);
  const at = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
}

/** A presigned URL made by boto3 (botocore), independent of our signer. */
async function boto3Presign(key: string, op: "get" | "put", opts: { contentType?: string; expires?: number; signedAt?: number } = {}): Promise<string> {
  const args = [BOTO3, s3.endpoint, s3.region, s3.accessKeyId, s3.secretAccessKey, s3.bucket, key, op, String(opts.expires ?? 300), opts.contentType ?? ""];
  if (opts.signedAt !== undefined) args.push(String(opts.signedAt));
  const { stdout } = await run("python3", args);
  return stdout.trim();
}

describe("object storage through presigned URLs", () => {
  let owner: TestAccount;
  let slug: string;
  let projectId: string;
  let dir: string;
  beforeAll(async () => {
    owner = await newAccount();
    const project = await newProject(owner);
    slug = project.slug;
    projectId = project.id;
    dir = await mkdtemp(join(tmpdir(), "slipway-storage-"));
  });

  it("uploads with curl to the presigned URL, then lists, downloads and deletes the file (owner)", async () => {
    const grant = await owner.api("POST", `/${slug}/storage/upload`, { filename: "docs/report one.txt", content_type: "text/plain", expires: 600 });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ method: "PUT", path: "docs/report one.txt", headers: { "Content-Type": "text/plain" }, expires_in: 600 });
    expect(new URL(grant.body.upload_url).searchParams.get("X-Amz-Expires")).toBe("600");
    await writeFile(join(dir, "report.txt"), "hello storage\n");
    const put = await curlPut(grant.body.upload_url, join(dir, "report.txt"), { "Content-Type": "text/plain" });
    expect(put.status).toBe(200);

    const list = await owner.api("GET", `/${slug}/storage/files?prefix=docs/`);
    expect(list.status).toBe(200);
    expect(list.body.files).toEqual([expect.objectContaining({ path: "docs/report one.txt", size: 14, content_type: "text/plain" })]);
    expect(list.body.files[0].etag).toMatch(/^".+"$/);
    expect(Date.parse(list.body.files[0].uploaded_at)).not.toBeNaN();

    const download = await owner.api("GET", `/${slug}/storage/download/docs/report%20one.txt`);
    expect(download.status).toBe(200);
    expect(download.body).toMatchObject({ method: "GET", path: "docs/report one.txt", size: 14 });
    const fetched = await fetch(download.body.download_url);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("content-type")).toBe("text/plain");
    expect(await fetched.text()).toBe("hello storage\n");

    expect((await owner.api("DELETE", `/${slug}/storage/files/docs/report%20one.txt`)).status).toBe(200);
    expect((await owner.api("GET", `/${slug}/storage/files?prefix=docs/`)).body.files).toEqual([]);
    expect((await owner.api("GET", `/${slug}/storage/download/docs/report%20one.txt`)).status).toBe(404);
    expect((await fetch(download.body.download_url)).status).toBe(404);
  });

  it("refuses an upload with another Content-Type than the one signed (403)", async () => {
    const grant = await owner.api("POST", `/${slug}/storage/upload`, { filename: "img.png", content_type: "image/png", expires: 60 });
    await writeFile(join(dir, "img.png"), "not really a png");
    const wrong = await curlPut(grant.body.upload_url, join(dir, "img.png"), { "Content-Type": "text/html" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toContain("SignatureDoesNotMatch");
    const missing = await fetch(grant.body.upload_url, { method: "PUT", body: new Uint8Array([1, 2, 3]) });
    expect([403]).toContain(missing.status);
    expect((await owner.api("GET", `/${slug}/storage/files?prefix=img`)).body.files).toEqual([]);
  });

  it("refuses a tampered signature, key or expiry (403)", async () => {
    const grant = await owner.api("POST", `/${slug}/storage/upload`, { filename: "t.txt", content_type: "text/plain", expires: 60 });
    const put = (url: string) => fetch(url, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "x" });
    const url = new URL(grant.body.upload_url);
    const sig = url.searchParams.get("X-Amz-Signature")!;
    url.searchParams.set("X-Amz-Signature", (sig[0] === "0" ? "1" : "0") + sig.slice(1));
    expect((await put(url.href)).status).toBe(403);
    const otherKey = new URL(grant.body.upload_url.replace("/t.txt?", "/u.txt?"));
    expect((await put(otherKey.href)).status).toBe(403);
    const longer = new URL(grant.body.upload_url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect((await put(longer.href)).status).toBe(403);
  });

  it("refuses an expired URL (403), signed by boto3 an hour ago", async () => {
    const key = `projects/${projectId}/objects/old.txt`;
    const url = await boto3Presign(key, "put", { contentType: "text/plain", expires: 60, signedAt: Math.floor(Date.now() / 1000) - 3600 });
    const res = await fetch(url, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "late" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Request has expired");
  });

  it("accepts PUT and GET URLs presigned by boto3, the reference S3 client", async () => {
    const key = `projects/${projectId}/objects/from boto3/a+b.json`;
    const putUrl = await boto3Presign(key, "put", { contentType: "application/json" });
    const put = await fetch(putUrl, { method: "PUT", headers: { "Content-Type": "application/json" }, body: '{"ok":true}' });
    expect(put.status).toBe(200);
    const listed = await owner.api("GET", `/${slug}/storage/files?prefix=from%20boto3/`);
    expect(listed.body.files.map((f: any) => f.path)).toEqual(["from boto3/a+b.json"]);
    const get = await fetch(await boto3Presign(key, "get"));
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ ok: true });
    // and boto3's URL for another content type is refused for ours
    const wrongType = await fetch(putUrl, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "x" });
    expect(wrongType.status).toBe(403);
  });

  it("refuses paths that leave the project's folder or are malformed (400)", async () => {
    const bad = ["../other/x", "/etc/passwd", "a//b", "a/", "a/./b", "a\\b", "bad\u0001name", "x".repeat(901), ""];
    for (const filename of bad) {
      const reply = await owner.api("POST", `/${slug}/storage/upload`, { filename, content_type: "text/plain" });
      expect(reply.status, JSON.stringify(filename)).toBe(400);
      expect(reply.body.detail).toBeTruthy();
    }
    expect((await owner.api("GET", `/${slug}/storage/download/a%2F..%2F..%2Fb`)).status).toBe(400);
    expect((await owner.api("DELETE", `/${slug}/storage/files/a%2F..%2Fb`)).status).toBe(400);
    expect((await owner.api("GET", `/${slug}/storage/files?prefix=..%2F`)).status).toBe(400);
  });

  it("validates content_type and the bounds of expires (400)", async () => {
    expect((await owner.api("POST", `/${slug}/storage/upload`, { filename: "a.txt", content_type: "not a type" })).status).toBe(400);
    expect((await owner.api("POST", `/${slug}/storage/upload`, { filename: "a.txt", content_type: "text/plain", expires: 0 })).status).toBe(400);
    expect((await owner.api("POST", `/${slug}/storage/upload`, { filename: "a.txt", content_type: "text/plain", expires: 604801 })).status).toBe(400);
    const dflt = await owner.api("POST", `/${slug}/storage/upload`, { filename: "a.txt", content_type: "text/plain" });
    expect(dflt.body.expires_in).toBe(3600);
  });

  it("pages through a listing with a cursor", async () => {
    for (const n of [1, 2, 3]) {
      const g = await owner.api("POST", `/${slug}/storage/upload`, { filename: `pages/${n}.txt`, content_type: "text/plain" });
      expect((await fetch(g.body.upload_url, { method: "PUT", headers: g.body.headers, body: String(n) })).status).toBe(200);
    }
    const first = await owner.api("GET", `/${slug}/storage/files?prefix=pages/&limit=2`);
    expect(first.body.files.map((f: any) => f.path)).toEqual(["pages/1.txt", "pages/2.txt"]);
    expect(first.body.truncated).toBe(true);
    const second = await owner.api("GET", `/${slug}/storage/files?prefix=pages/&limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body.files.map((f: any) => f.path)).toEqual(["pages/3.txt"]);
    expect(second.body.cursor).toBeNull();
  });

  it("shows another account nothing of this project's storage (404)", async () => {
    const other = await newAccount();
    for (const [method, path] of [
      ["GET", `/${slug}/storage/files`],
      ["GET", `/${slug}/storage/download/pages/1.txt`],
      ["DELETE", `/${slug}/storage/files/pages/1.txt`],
      ["POST", `/${slug}/storage/upload`],
    ] as const) {
      const reply = await other.api(method, path, method === "POST" ? { filename: "x.txt", content_type: "text/plain" } : undefined);
      expect(reply.status).toBe(404);
      expect(JSON.stringify(reply.body)).not.toContain("pages/1.txt");
    }
    expect((await owner.api("GET", `/${slug}/storage/files?prefix=pages/`)).body.files).toHaveLength(3);
  });

  it("refuses with 402 an upload that would exceed a small storage limit", async () => {
    const project = await newProject(owner, "Limited");
    expect((await admin("PATCH", `/projects/${project.slug}`, { storage_limit_bytes: 1000 })).status).toBe(200);
    const first = await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "a.bin", content_type: "application/octet-stream", size: 600 });
    expect(first.status).toBe(200);
    expect(first.body.headers["Content-Length"]).toBe("600");
    expect((await fetch(first.body.upload_url, { method: "PUT", headers: first.body.headers, body: new Uint8Array(600) })).status).toBe(200);
    const second = await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "b.bin", content_type: "application/octet-stream", size: 600 });
    expect(second.status).toBe(402);
    expect(second.body.detail).toMatch(/storage limit/);
    const usage = await owner.api("GET", `/${project.slug}/storage/usage`);
    expect(usage.body).toMatchObject({ size_bytes: 600, object_count: 1, limit_bytes: 1000 });
    // a signed Content-Length binds the upload to the declared size
    const small = await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "c.bin", content_type: "application/octet-stream", size: 10 });
    expect((await fetch(small.body.upload_url, { method: "PUT", headers: { "Content-Type": "application/octet-stream" }, body: new Uint8Array(300) })).status).toBe(403);
    // the site's files count against the same limit
    const site = await owner.api("POST", `/${project.slug}/files`, { filename: "big.txt", content_type: "text/plain", content: Buffer.alloc(500).toString("base64") });
    expect(site.status).toBe(402);
    expect((await owner.api("DELETE", `/${project.slug}/storage/files/a.bin`)).status).toBe(200);
    expect((await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "b.bin", content_type: "application/octet-stream", size: 600 })).status).toBe(200);
    // without a declared size the request passes while under the limit; the bytes then count
    const undeclared = await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "d.bin", content_type: "application/octet-stream" });
    expect(undeclared.status).toBe(200);
    expect((await fetch(undeclared.body.upload_url, { method: "PUT", headers: undeclared.body.headers, body: new Uint8Array(1200) })).status).toBe(200);
    const over = await owner.api("POST", `/${project.slug}/storage/upload`, { filename: "e.bin", content_type: "application/octet-stream" });
    expect(over.status).toBe(402);
  });
});
