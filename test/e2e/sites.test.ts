import http from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import { newAccount, newProject, request, type TestAccount } from "./client.ts";

type Page = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/**
 * Fetches a site address like a browser on this machine would: *.localhost goes to the
 * loopback, with the site's host name in the Host header.
 */
function visit(url: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<Page> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: u.port, path: u.pathname + u.search, method: opts.method ?? "GET", headers: { Host: u.host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");

describe("static site hosting", () => {
  let owner: TestAccount;
  let slug: string;
  let site: string;
  const upload = (filename: string, content: string | Buffer, content_type: string) => owner.api("POST", `/${slug}/files`, { filename, content: b64(content), content_type });

  beforeAll(async () => {
    owner = await newAccount();
    const project = await newProject(owner);
    slug = project.slug;
    site = (await owner.api("GET", `/${slug}/info`)).body.site_url;
  });

  it("stores a base64 file and answers {uploaded, url}; the site serves index.html at / with its Content-Type", async () => {
    const reply = await upload("index.html", "<h1>Home</h1>", "text/html; charset=utf-8");
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ uploaded: true, url: `${site}/index.html` });
    const home = await visit(`${site}/`);
    expect(home.status).toBe(200);
    expect(home.body.toString()).toBe("<h1>Home</h1>");
    expect(home.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(home.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect((await visit(reply.body.url)).body.toString()).toBe("<h1>Home</h1>");
  });

  it("serves index.html for directories and redirects a directory without its slash", async () => {
    await upload("docs/index.html", "<p>docs</p>", "text/html");
    expect((await visit(`${site}/docs/`)).body.toString()).toBe("<p>docs</p>");
    const bare = await visit(`${site}/docs`);
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe("/docs/");
    await upload("about.html", "<p>about</p>", "text/html");
    expect((await visit(`${site}/about`)).body.toString()).toBe("<p>about</p>");
  });

  it("answers If-None-Match with 304, Range with 206, HEAD with headers only", async () => {
    await upload("data.txt", "0123456789abcdef", "text/plain");
    const full = await visit(`${site}/data.txt`);
    const etag = full.headers.etag!;
    expect(etag).toMatch(/^".+"$/);
    expect(full.headers["accept-ranges"]).toBe("bytes");
    const again = await visit(`${site}/data.txt`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const part = await visit(`${site}/data.txt`, { headers: { Range: "bytes=2-5" } });
    expect(part.status).toBe(206);
    expect(part.body.toString()).toBe("2345");
    expect(part.headers["content-range"]).toBe("bytes 2-5/16");
    const tail = await visit(`${site}/data.txt`, { headers: { Range: "bytes=-3" } });
    expect(tail.body.toString()).toBe("def");
    expect((await visit(`${site}/data.txt`, { headers: { Range: "bytes=99-" } })).status).toBe(416);
    const head = await visit(`${site}/data.txt`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe("16");
    expect(head.body.length).toBe(0);
  });

  it("serves the site's own 404.html with status 404, and a plain 404 page before it has one", async () => {
    const before = await visit(`${site}/missing`);
    expect(before.status).toBe(404);
    expect(before.headers["content-type"]).toMatch(/text\/html/);
    await upload("404.html", "<h1>Lost?</h1>", "text/html");
    const after = await visit(`${site}/missing`);
    expect(after.status).toBe(404);
    expect(after.body.toString()).toBe("<h1>Lost?</h1>");
  });

  it("answers an unknown site with an HTML 404 page, not an API error", async () => {
    const unknown = await visit(site.replace(slug, "no-such-site-here"));
    expect(unknown.status).toBe(404);
    expect(unknown.headers["content-type"]).toMatch(/text\/html/);
    expect(unknown.body.toString()).toContain("<h1>");
  });

  it("lists site files with their public urls and deletes one", async () => {
    const list = await owner.api("GET", `/${slug}/files`);
    expect(list.status).toBe(200);
    expect(list.body.files.map((f: any) => f.path)).toEqual(expect.arrayContaining(["index.html", "docs/index.html", "data.txt"]));
    expect(list.body.files.find((f: any) => f.path === "data.txt").url).toBe(`${site}/data.txt`);
    const docs = await owner.api("GET", `/${slug}/files?path=docs/`);
    expect(docs.body.files.map((f: any) => f.path)).toEqual(["docs/index.html"]);
    expect((await owner.api("DELETE", `/${slug}/files/data.txt`)).status).toBe(200);
    expect((await visit(`${site}/data.txt`)).status).toBe(404);
    expect((await owner.api("DELETE", `/${slug}/files/data.txt`)).status).toBe(404);
    expect((await owner.api("DELETE", `/${slug}/files/a%2F..%2Fb`)).status).toBe(400);
  });

  it("refuses a base64 file of 5 MB or more with 413 pointing to use_presigned", async () => {
    const reply = await upload("big.bin", Buffer.alloc(5 * 1024 * 1024), "application/octet-stream");
    expect(reply.status).toBe(413);
    expect(reply.body.detail).toContain("use_presigned");
    const justUnder = await upload("under.bin", Buffer.alloc(5 * 1024 * 1024 - 1), "application/octet-stream");
    expect(justUnder.status).toBe(201);
  });

  it("gives an upload address for a 6 MB file with use_presigned, and the site serves it", async () => {
    const grant = await owner.api("POST", `/${slug}/files`, { filename: "media/big.bin", content_type: "application/octet-stream", use_presigned: true });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ uploaded: false, method: "PUT", url: `${site}/media/big.bin` });
    const bytes = Buffer.alloc(6 * 1024 * 1024, 7);
    const put = await fetch(grant.body.upload_url, { method: "PUT", headers: grant.body.headers, body: bytes });
    expect(put.status).toBe(200);
    const served = await visit(grant.body.url, { method: "HEAD" });
    expect(served.status).toBe(200);
    expect(served.headers["content-length"]).toBe(String(bytes.length));
    const last = await visit(grant.body.url, { headers: { Range: "bytes=-4" } });
    expect([...last.body]).toEqual([7, 7, 7, 7]);
  });

  it("honours _redirects and _headers, and never serves them", async () => {
    await upload("_redirects", "/old /docs/ 301\n/blog/* /news/:splat 302\n/app/* /index.html 200\n", "text/plain");
    await upload("_headers", "/*\n  X-Frame-Options: DENY\n/docs/*\n  Cache-Control: public, max-age=60\n", "text/plain");
    const old = await visit(`${site}/old`);
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe(`${site}/docs/`);
    expect((await visit(`${site}/blog/2026/hello`)).headers.location).toBe(`${site}/news/2026/hello`);
    const spa = await visit(`${site}/app/settings`);
    expect(spa.status).toBe(200);
    expect(spa.body.toString()).toBe("<h1>Home</h1>");
    expect(spa.headers["x-frame-options"]).toBe("DENY");
    expect((await visit(`${site}/docs/`)).headers["cache-control"]).toBe("public, max-age=60");
    expect((await visit(`${site}/_redirects`)).status).toBe(404);
    expect((await visit(`${site}/_headers`)).body.toString()).not.toContain("X-Frame-Options");
  });

  it("shows another account nothing of this project's site files (404)", async () => {
    const other = await newAccount();
    const list = await other.api("GET", `/${slug}/files`);
    expect(list.status).toBe(404);
    expect(JSON.stringify(list.body)).not.toContain("index.html");
    expect((await other.api("POST", `/${slug}/files`, { filename: "x.html", content: b64("x"), content_type: "text/html" })).status).toBe(404);
    expect((await other.api("DELETE", `/${slug}/files/index.html`)).status).toBe(404);
    expect((await visit(`${site}/`)).body.toString()).toBe("<h1>Home</h1>");
  });

  it("keeps API addresses answering the API", async () => {
    const health = await request("GET", `${new URL(site).protocol}//127.0.0.1:${new URL(site).port}/health`);
    expect(health.body).toEqual({ ok: true });
  });
});
