import { randomToken, seal, sha256Hex } from "../platform/crypto.ts";

/** API keys look like `slw_<43 base64url chars>`: 256 random bits behind a recognisable prefix. */
export const API_KEY_PREFIX = "slw_";

export type IssuedApiKey = { key: string; hash: string; sealed: string };

/** Makes a new API key with the hash it is looked up by and the sealed copy shown by /me. */
export async function issueApiKey(encryptionKey: string): Promise<IssuedApiKey> {
  const key = API_KEY_PREFIX + randomToken(32);
  return { key, hash: await hashApiKey(key), sealed: await seal(key, encryptionKey) };
}

export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}
