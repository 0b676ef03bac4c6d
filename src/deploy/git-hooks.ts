import type { Bindings } from "../env.ts";
import { platformWebhookId, registerPlatformWebhook } from "../git/webhooks.ts";

/**
 * The seam to git hosting: the platform's own webhook in the project's repository. Its
 * integer id is the interface's `git_webhook_id`; its push events start deploys
 * (src/git/webhook-delivery.ts → deployOnPush).
 */
export function ensurePlatformWebhook(env: Bindings, project: { id: string }): Promise<number | null> {
  return registerPlatformWebhook(env, project);
}

export function platformWebhookIdOf(env: Bindings, project: { id: string }): Promise<number | null> {
  return platformWebhookId(env, project);
}
