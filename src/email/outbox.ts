import type { EmailMessage } from "./email-sender.ts";

/**
 * The local email outbox: each message is one R2 object under
 * `dev-outbox/<recipient, lower case, URI-encoded>/<ms since epoch, 15 digits>-<random>.json`,
 * so listing a recipient's prefix gives their messages oldest first.
 */
export type OutboxMessage = EmailMessage & { created_at: string };

const PREFIX = "dev-outbox/";

const recipientPrefix = (to: string) => `${PREFIX}${encodeURIComponent(to.trim().toLowerCase())}/`;

export async function saveToOutbox(bucket: R2Bucket, message: EmailMessage): Promise<void> {
  const now = Date.now();
  const key = `${recipientPrefix(message.to)}${String(now).padStart(15, "0")}-${crypto.randomUUID().slice(0, 8)}.json`;
  const stored: OutboxMessage = { ...message, created_at: new Date(now).toISOString() };
  await bucket.put(key, JSON.stringify(stored), { httpMetadata: { contentType: "application/json" } });
}

/** A recipient's messages, oldest first (at most the latest 100). */
export async function readOutbox(bucket: R2Bucket, to: string): Promise<OutboxMessage[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: recipientPrefix(to), cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  keys.sort();
  const messages = await Promise.all(keys.slice(-100).map(async (key) => (await (await bucket.get(key))?.json()) as OutboxMessage | undefined));
  return messages.filter((m): m is OutboxMessage => !!m);
}
