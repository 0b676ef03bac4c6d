import { describe, expect, it } from "vitest";
import { checkRedirectUrl, normalizeAllowedOrigin } from "../../src/auth/redirects.ts";
import type { EnvVars } from "../../src/env.ts";
import type { ProjectAuth } from "../../src/auth/project-auth.ts";

const config = { SITE_URL_TEMPLATE: "https://{slug}.slipway.site", APPS_DOMAIN: "slipway.app" } as EnvVars;
const auth = { allowed_redirect_origins: ["https://app.example.com"] } as ProjectAuth;
const allowed = (url: string) => {
  try {
    checkRedirectUrl(config, "my-app", auth, url);
    return true;
  } catch {
    return false;
  }
};

describe("redirect_url allow-list (no open redirects)", () => {
  it("allows the project's site, its deployed app, localhost and the origins it allowed", () => {
    for (const url of ["https://my-app.slipway.site/in", "https://my-app.slipway.app/cb?x=1", "http://localhost:3000/", "http://127.0.0.1:8080/x", "http://my-app.localhost:8787/", "https://app.example.com/welcome"]) {
      expect(allowed(url), url).toBe(true);
    }
  });

  it("refuses other hosts, look-alikes, other projects' sites, other schemes and credentials", () => {
    for (const url of [
      "https://evil.example/", "https://my-app.slipway.site.evil.example/", "https://other.slipway.site/", "http://my-app.slipway.site/",
      "https://app.example.com.evil.example/", "http://app.example.com/", "javascript:alert(1)", "data:text/html,x", "//evil.example/",
      "https://user:pw@my-app.slipway.site/", "not a url",
    ]) {
      expect(allowed(url), url).toBe(false);
    }
  });

  it("accepts only bare https origins (http for localhost) as allowed origins", () => {
    expect(normalizeAllowedOrigin("https://app.example.com")).toBe("https://app.example.com");
    expect(normalizeAllowedOrigin("http://localhost:5173")).toBe("http://localhost:5173");
    for (const bad of ["http://app.example.com", "https://app.example.com/path", "https://app.example.com?q", "ftp://x.example", "app.example.com"]) {
      expect(() => normalizeAllowedOrigin(bad), bad).toThrow();
    }
  });
});
