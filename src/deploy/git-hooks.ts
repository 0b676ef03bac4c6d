import type { Bindings } from "../env.ts";

/**
 * The seam to git hosting (issue #6): the platform's own webhook in the project's
 * repository. Until git hosting is on this branch there is no webhook to register, so
 * these answer null and auto-deploy waits for it.
 */
export async function ensurePlatformWebhook(_env: Bindings, _project: { id: string }): Promise<number | null> {
  return null;
}

export async function platformWebhookIdOf(_env: Bindings, _project: { id: string }): Promise<number | null> {
  return null;
}
