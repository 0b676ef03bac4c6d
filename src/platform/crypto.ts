/** Small crypto helpers on Web Crypto: random tokens, SHA-256, AES-256-GCM sealing. */

const encoder = new TextEncoder();

export function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
}

/** `bytes` random bytes, base64url: 32 bytes give 256 bits. */
export function randomToken(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const keys = new Map<string, Promise<CryptoKey>>();

function aesKey(keyBase64: string): Promise<CryptoKey> {
  let key = keys.get(keyBase64);
  if (!key) {
    key = crypto.subtle.importKey("raw", fromBase64(keyBase64), "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(keyBase64, key);
  }
  return key;
}

/** Encrypts text for storage at rest: `v1.<iv>.<ciphertext>` (AES-256-GCM). */
export async function seal(plaintext: string, keyBase64: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await aesKey(keyBase64), encoder.encode(plaintext));
  return `v1.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ct))}`;
}

/** Decrypts what `seal` produced. */
export async function unseal(sealed: string, keyBase64: string): Promise<string> {
  const [version, iv, ct] = sealed.split(".");
  if (version !== "v1" || !iv || !ct) throw new Error("unsupported sealed value");
  const pt = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) }, await aesKey(keyBase64), fromBase64(ct));
  return new TextDecoder().decode(pt);
}

/** Compares two strings in time independent of where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
