import { z } from "zod";
import type { Bindings } from "../env.ts";
import type { GitEventMessage } from "../../durable-objects/git-repo.ts";
import { signatureHeader } from "./webhook-signature.ts";
import { loadConfig } from "../env.ts";
import { findProjectBySlug } from "../projects/projects.ts";
import { deployOnPush } from "../deploy/deploy-service.ts";

/**
 * The GIT_EVENTS queue consumer: POSTs each push event to its webhook, signed with the
 * webhook's secret (X-Hub-Signature-256) and carrying a delivery id a receiver can use to
 * drop replays. A failed delivery is retried with back-off; after the queue's max_retries
 * it goes to the dead-letter queue. The platform's own webhook is handled in the Worker.
 */

const Message = z.object({
  delivery_id: z.string().uuid(),
  webhook_id: z.number().int(),
  repo: z.string(),
  payload: z.object({ event: z.literal("push"), delivery_id: z.string(), ref: z.string(), before: z.string(), after: z.string() }).passthrough(),
});

/** What the platform does with a push to a repository: deploys it when auto_deploy is on. */
export async function onPlatformPush(env: Bindings, message: GitEventMessage): Promise<void> {
  const config = loadConfig(env as unknown as Record<string, unknown>);
  const slug = message.payload.repository.slug;
  const project = slug ? await findProjectBySlug(config, slug) : null;
  if (!project || project.id !== message.repo) return; // the project is gone
  const deployment = await deployOnPush(env, config, project, message.payload);
  if (deployment) console.log(JSON.stringify({ level: "info", where: "platform-webhook", project: project.slug, ref: message.payload.ref, after: message.payload.after, deployment_id: deployment.id }));
}

export async function deliverGitEvents(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = Message.safeParse(msg.body);
    if (!parsed.success) {
      console.error(JSON.stringify({ level: "error", where: "git-events", error: "malformed message dropped", id: msg.id }));
      msg.ack();
      continue;
    }
    const m = parsed.data as unknown as GitEventMessage;
    try {
      const target = await env.GIT_REPO.get(env.GIT_REPO.idFromName(m.repo)).webhookTarget(m.webhook_id);
      if (!target) msg.ack(); // the webhook was removed
      else if (target.kind === "platform") {
        await onPlatformPush(env, m);
        msg.ack();
      } else {
        const body = JSON.stringify(m.payload);
        const res = await fetch(target.url!, {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "User-Agent": "Slipway-Hookshot/1",
            "X-Slipway-Event": "push",
            "X-Slipway-Delivery": m.delivery_id,
            "X-Slipway-Hook-ID": String(m.webhook_id),
            "X-Hub-Signature-256": await signatureHeader(target.secret, body),
          },
          body,
          redirect: "manual",
        });
        await res.body?.cancel();
        if (res.status >= 200 && res.status < 300) msg.ack();
        else msg.retry({ delaySeconds: backoff(msg.attempts) });
      }
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", where: "git-events", delivery: m.delivery_id, error: String(err) }));
      msg.retry({ delaySeconds: backoff(msg.attempts) });
    }
  }
}

/** 2, 4, 8 … seconds, at most ten minutes. */
const backoff = (attempts: number) => Math.min(600, 2 ** Math.max(1, attempts));
