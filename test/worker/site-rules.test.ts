import { describe, expect, it } from "vitest";
import { applyHeaderRules, matchRedirect, parseHeaders, parseRedirects } from "../../src/sites/site-rules.ts";
import { parseRange, etagMatches } from "../../src/storage/object-response.ts";

describe("_redirects (Cloudflare Pages / Netlify syntax)", () => {
  const rules = parseRedirects(`
# comment
/old            /new          301
/blog/*         /news/:splat  308
/users/:id/profile  /u/:id
/forced  /elsewhere  302!
/*              /index.html   200
/bad  /x  999
`);
  it("matches first rule first, fills :splat and :name, defaults to 302", () => {
    expect(matchRedirect(rules, "/old")).toEqual({ to: "/new", status: 301 });
    expect(matchRedirect(rules, "/blog/2026/post")).toEqual({ to: "/news/2026/post", status: 308 });
    expect(matchRedirect(rules, "/users/42/profile")).toEqual({ to: "/u/42", status: 302 });
    expect(matchRedirect(rules, "/forced")).toEqual({ to: "/elsewhere", status: 302 });
    expect(matchRedirect(rules, "/anything/else")).toEqual({ to: "/index.html", status: 200 });
    expect(rules).toHaveLength(5);
  });
});

describe("_headers", () => {
  it("adds headers to matching paths, removes with !, fills :splat", () => {
    const rules = parseHeaders(`/*
  X-Frame-Options: DENY
/assets/*
  Cache-Control: public, max-age=31536000, immutable
  X-Asset: :splat
  ! X-Frame-Options
`);
    const headers = new Headers({ "Cache-Control": "public, max-age=0, must-revalidate" });
    applyHeaderRules(rules, "/assets/app.js", headers);
    expect(headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(headers.get("x-asset")).toBe("app.js");
    expect(headers.get("x-frame-options")).toBeNull();
    const page = new Headers();
    applyHeaderRules(rules, "/index.html", page);
    expect(page.get("x-frame-options")).toBe("DENY");
  });
});

describe("Range and If-None-Match", () => {
  it("parses single byte ranges and spots unsatisfiable ones", () => {
    expect(parseRange("bytes=0-9", 100)).toEqual({ offset: 0, length: 10 });
    expect(parseRange("bytes=90-", 100)).toEqual({ offset: 90, length: 10 });
    expect(parseRange("bytes=-5", 100)).toEqual({ offset: 95, length: 5 });
    expect(parseRange("bytes=95-200", 100)).toEqual({ offset: 95, length: 5 });
    expect(parseRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRange("bytes=0-1,5-6", 100)).toBeNull();
    expect(parseRange("items=0-1", 100)).toBeNull();
  });
  it("compares ETags weakly and honours *", () => {
    expect(etagMatches('"a", W/"b"', '"b"')).toBe(true);
    expect(etagMatches("*", '"x"')).toBe(true);
    expect(etagMatches('"a"', '"b"')).toBe(false);
  });
});

describe("site addresses", () => {
  it("maps a Host to a slug through SITE_URL_TEMPLATE, and nothing else", async () => {
    const { siteSlugFromHost } = await import("../../src/sites/serve-site.ts");
    const prod = { SITE_URL_TEMPLATE: "https://{slug}.slipway.site" } as any;
    expect(siteSlugFromHost(prod, "my-app.slipway.site")).toBe("my-app");
    expect(siteSlugFromHost(prod, "My-App.slipway.site:443")).toBe("my-app");
    expect(siteSlugFromHost(prod, "api.slipway.dev")).toBeNull();
    expect(siteSlugFromHost(prod, "a.b.slipway.site")).toBeNull();
    expect(siteSlugFromHost(prod, "slipway.site")).toBeNull();
    const local = { SITE_URL_TEMPLATE: "http://{slug}.localhost:8787" } as any;
    expect(siteSlugFromHost(local, "my-app.localhost:51234")).toBe("my-app");
    expect(siteSlugFromHost(local, "127.0.0.1:8787")).toBeNull();
  });
});
