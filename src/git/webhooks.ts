import type { Bindings } from "../env.ts";
import { badRequest, notFound } from "../errors.ts";
import { randomToken } from "../platform/crypto.ts";
import type { Webhook } from "../../durable-objects/git-repo.ts";

/** Webhooks of a project's repository, kept by its GitRepo object. */

const repo = (env: Bindings, projectId: string) => env.GIT_REPO.get(env.GIT_REPO.idFromName(projectId));

/** The platform's own webhook, registered on first use; its integer id is `git_webhook_id`. */
export function registerPlatformWebhook(env: Bindings, project: { id: string }): Promise<number> {
  return repo(env, project.id).ensurePlatformWebhook();
}

export function platformWebhookId(env: Bindings, project: { id: string }): Promise<number | null> {
  return repo(env, project.id).platformWebhookId();
}

/** Adds a webhook that receives every push; without a secret one is generated (shown once). */
export async function addWebhook(env: Bindings, project: { id: string }, url: string, secret?: string): Promise<Webhook & { secret: string }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest("url must be an absolute http(s) URL.", "invalid_url");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw badRequest("url must use http or https.", "invalid_url");
  const key = secret ?? randomToken(32);
  const hook = await repo(env, project.id).addWebhook(parsed.toString(), key);
  return { ...hook, secret: key };
}

export function listWebhooks(env: Bindings, project: { id: string }): Promise<Webhook[]> {
  return repo(env, project.id).listWebhooks();
}

export async function removeWebhook(env: Bindings, project: { id: string }, id: number): Promise<void> {
  if (!(await repo(env, project.id).removeWebhook(id))) throw notFound(`No webhook ${id} you can remove (the platform's own webhook stays).`);
}
