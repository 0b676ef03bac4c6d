import { toHex, utf8 } from "./bytes.ts";

/**
 * GitHub's webhook signature scheme: `X-Hub-Signature-256: sha256=<hex>` where hex is the
 * HMAC-SHA256 of the exact body bytes under the webhook's secret.
 */

async function hmac(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(body))));
}

export async function signatureHeader(secret: string, body: string): Promise<string> {
  return `sha256=${await hmac(secret, body)}`;
}

/** Checks a received X-Hub-Signature-256 header in constant time. */
export async function verifySignature(secret: string, body: string, header: string | null | undefined): Promise<boolean> {
  const expected = await signatureHeader(secret, body);
  if (!header || header.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ header.charCodeAt(i);
  return diff === 0;
}
