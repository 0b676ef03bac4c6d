import type { EmailMessage } from "./email-sender.ts";

/** The emails of end-user auth: plain, with the project's name, a text and an HTML part. */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function compose(to: string, subject: string, lines: { intro: string; action: string; link: string; outro: string }): EmailMessage {
  const text = `${lines.intro}\n\n${lines.action}:\n${lines.link}\n\n${lines.outro}\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    `<p>${escapeHtml(lines.intro)}</p>` +
    `<p><a href="${escapeHtml(lines.link)}">${escapeHtml(lines.action)}</a></p>` +
    `<p style="color:#555">${escapeHtml(lines.outro)}</p>` +
    `</body></html>`;
  return { to, subject, text, html };
}

export function magicLinkEmail(projectName: string, to: string, link: string, minutes: number): EmailMessage {
  return compose(to, `Your sign-in link for ${projectName}`, {
    intro: `Someone asked to sign in to ${projectName} with this email address.`,
    action: `Sign in to ${projectName}`,
    link,
    outro: `The link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this email.`,
  });
}

export function passwordResetEmail(projectName: string, to: string, link: string, minutes: number): EmailMessage {
  return compose(to, `Reset your ${projectName} password`, {
    intro: `Someone asked to reset the password of the ${projectName} account for this email address.`,
    action: "Choose a new password",
    link,
    outro: `The link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this email; your password stays as it is.`,
  });
}
