import type { Bindings, EnvVars } from "../env.ts";
import { ApiError } from "../errors.ts";
import { saveToOutbox } from "./outbox.ts";

/** One plain email: a text part and an HTML part saying the same. */
export type EmailMessage = { to: string; subject: string; text: string; html: string };

/** Delivers email. Which implementation runs is configuration (EMAIL_PROVIDER). */
export interface EmailSender {
  send(message: EmailMessage): Promise<void>;
}

/** Local development: messages are kept in the outbox, readable at GET /dev/outbox?to=. */
class OutboxSender implements EmailSender {
  constructor(private readonly bucket: R2Bucket) {}
  send(message: EmailMessage): Promise<void> {
    return saveToOutbox(this.bucket, message);
  }
}

/**
 * Production: an HTTP email API taking `{from, to: [..], subject, text, html}` with a
 * bearer token (Resend's /emails and compatible services).
 */
class HttpEmailSender implements EmailSender {
  constructor(private readonly config: EnvVars) {}
  async send(message: EmailMessage): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.config.EMAIL_HTTP_URL, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.config.EMAIL_HTTP_TOKEN}` },
        body: JSON.stringify({ from: this.config.EMAIL_FROM, to: [message.to], subject: message.subject, text: message.text, html: message.html }),
      });
    } catch (cause) {
      throw new ApiError(502, "The email service could not be reached; retry in a few seconds.", { code: "email_unavailable", cause });
    }
    if (!res.ok) {
      throw new ApiError(502, "The email service refused the message; retry later.", { code: "email_unavailable", cause: `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}` });
    }
  }
}

export function emailSender(env: Bindings, config: EnvVars): EmailSender {
  return config.EMAIL_PROVIDER === "outbox" ? new OutboxSender(env.BUCKET) : new HttpEmailSender(config);
}
