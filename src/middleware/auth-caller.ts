import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { notFound, unauthorized } from "../errors.ts";
import { findAccountByApiKey } from "../accounts/accounts.ts";
import { findProjectBySlug, findProjectForAccount } from "../projects/projects.ts";
import { SLUG_PATTERN } from "../projects/slug.ts";
import { looksLikePublishableKey, projectIdForPublishableKey } from "../auth/project-auth.ts";

/**
 * Who may call the end-user auth endpoints of `{slug}`:
 *  - `ownerOnly`: the account that owns the project, by `X-API-Key` (server-side);
 *  - `appOrOwner`: also the project's app in a browser, by its publishable key in
 *    `X-Publishable-Key`. Only the endpoints that act for the caller take it.
 * Another account's project is a 404 either way, with none of its data.
 */

const SELF_SERVICE = "signup, login, refresh, logout, token, send-magic-link and reset-password";

async function ownerProject(c: Context<AppEnv>, apiKey: string): Promise<void> {
  const config = c.get("config");
  const account = await findAccountByApiKey(config, apiKey);
  if (!account) {
    throw unauthorized(
      looksLikePublishableKey(apiKey)
        ? "That is a publishable key: send it in X-Publishable-Key, and only to the self-service auth endpoints."
        : "Invalid API key. It may have been regenerated; fetch the current one with GET /api/auth/me.",
    );
  }
  c.set("accountId", account.id);
  c.set("account", account);
  const slug = c.req.param("slug") ?? "";
  if (!SLUG_PATTERN.test(slug)) throw notFound(`Project "${slug}" not found.`);
  const project = await findProjectForAccount(config, account.id, slug);
  c.set("project", project);
  c.set("projectSlug", project.slug);
}

export const ownerOnly = createMiddleware<AppEnv>(async (c, next) => {
  const apiKey = c.req.header("x-api-key");
  if (!apiKey) {
    throw unauthorized(
      c.req.header("x-publishable-key")
        ? `This endpoint needs the account's X-API-Key and must be called from a server; the publishable key works only for ${SELF_SERVICE}.`
        : "Missing X-API-Key header. Send your account's API key (see GET /api/auth/me).",
    );
  }
  await ownerProject(c, apiKey);
  await next();
});

export const appOrOwner = createMiddleware<AppEnv>(async (c, next) => {
  const apiKey = c.req.header("x-api-key");
  if (apiKey) {
    await ownerProject(c, apiKey);
    return next();
  }
  const publishableKey = c.req.header("x-publishable-key");
  if (!publishableKey) throw unauthorized("Send the project's publishable key in X-Publishable-Key (browsers) or the account's X-API-Key (servers).");
  const config = c.get("config");
  const slug = c.req.param("slug") ?? "";
  const project = SLUG_PATTERN.test(slug) ? await findProjectBySlug(config, slug) : null;
  if (!project) throw notFound(`Project "${slug}" not found.`);
  const projectId = await projectIdForPublishableKey(config, slug, publishableKey);
  if (projectId !== project.id) throw unauthorized(`Invalid publishable key for project "${slug}". It is shown in GET /v1/project/${slug}/info and may have been regenerated.`);
  c.set("project", project);
  c.set("projectSlug", project.slug);
  await next();
});

/** Public endpoints (the emailed link, the JWKS) name only the project. */
export const anyCaller = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("slug") ?? "";
  const project = SLUG_PATTERN.test(slug) ? await findProjectBySlug(c.get("config"), slug) : null;
  if (!project) throw notFound(`Project "${slug}" not found.`);
  c.set("project", project);
  c.set("projectSlug", project.slug);
  await next();
});
