import { passwordResetEmail } from "../email/auth-emails.ts";
import { emailSender } from "../email/email-sender.ts";
import type { AuthContext } from "./auth-context.ts";
import { tokenError } from "./magic-link.ts";
import { replacePassword } from "./password-auth.ts";
import { checkRedirectUrl, withQuery } from "./redirects.ts";
import { findUserForLogin } from "./users.ts";

/**
 * Password reset by email: a link to redirect_url carrying `token` (single use, valid
 * RESET_TTL_MINUTES); the app checks it with GET /auth/reset-password/confirm and sets
 * the password with POST. The request is answered the same whether or not the email is
 * registered: the lookup and the delivery run after the response.
 */
export const RESET_TTL_MINUTES = 60;

export async function requestPasswordReset(ctx: AuthContext, input: { email: string; redirect_url: string }): Promise<void> {
  const redirectUrl = checkRedirectUrl(ctx.config, ctx.project.slug, await ctx.settings(), input.redirect_url);
  ctx.background(
    (async () => {
      const found = await findUserForLogin(ctx.db, input.email);
      if (!found) return;
      const { token } = await ctx.tokens.issue({ kind: "password_reset", userId: found.user.id, email: found.user.email, redirectUrl, ttlSeconds: RESET_TTL_MINUTES * 60 });
      await emailSender(ctx.env, ctx.config).send(passwordResetEmail(ctx.project.name, found.user.email, withQuery(redirectUrl, { token }), RESET_TTL_MINUTES));
    })(),
  );
}

/** Says whether a reset token can still be used, without spending it. */
export async function checkResetToken(ctx: AuthContext, token: string): Promise<{ email: string; expires_at: string }> {
  const result = await ctx.tokens.check("password_reset", token);
  if (!result.ok) throw tokenError(result, "reset link", "Ask for a new one.");
  return { email: result.record.email, expires_at: new Date(result.record.expiresAt).toISOString() };
}

/** Spends the token and sets the password; the reset also proves the email address. */
export async function confirmPasswordReset(ctx: AuthContext, input: { token: string; new_password: string }): Promise<void> {
  const result = await ctx.tokens.consume("password_reset", input.token);
  if (!result.ok) throw tokenError(result, "reset link", "Ask for a new one.");
  await replacePassword(ctx, result.record.userId, input.new_password, true);
}
