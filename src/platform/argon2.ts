// Password hashing with Argon2id, stored as PHC strings:
//   $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>   (base64 without padding)
// The parameters are OWASP's Argon2id minimum (19 MiB, 2 passes, 1 lane). The
// computation lives in argon2-core.ts, on WebAssembly workerd is allowed to run.
import { argon2Raw, type Argon2Options, type Argon2Type } from "./argon2-core.ts";

export { argon2MemoryBytes, type Argon2Options } from "./argon2-core.ts";

export const PASSWORD_HASH_PARAMS = { memorySize: 19456, iterations: 2, parallelism: 1, hashLength: 32, saltLength: 16 };

/** Raw Argon2id tag, for callers (and tests) that need the bytes rather than a PHC string. */
export function argon2id(options: Argon2Options): Promise<Uint8Array> {
  return argon2Raw("argon2id", options);
}

/** Hashes a password with Argon2id and a fresh 16-byte random salt; returns a PHC string. */
export async function hashPassword(password: string): Promise<string> {
  const { memorySize, iterations, parallelism, hashLength, saltLength } = PASSWORD_HASH_PARAMS;
  const salt = crypto.getRandomValues(new Uint8Array(saltLength));
  const hash = await argon2id({ password: utf8(password), salt, memorySize, iterations, parallelism, hashLength });
  return `$argon2id$v=19$m=${memorySize},t=${iterations},p=${parallelism}$${toBase64(salt)}$${toBase64(hash)}`;
}

/**
 * Checks a password against any argon2id/argon2i/argon2d PHC string (version 19), in
 * constant time over the hash. A malformed string, or one whose parameters are out of
 * range (see ARGON2_LIMITS), verifies as false rather than throwing.
 */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const parsed = parsePhc(phc);
  if (!parsed) return false;
  const { type, expected, ...params } = parsed;
  let actual: Uint8Array;
  try {
    actual = await argon2Raw(type, { ...params, password: utf8(password) });
  } catch (error) {
    if (error instanceof RangeError) return false; // parameters outside what we accept
    throw error;
  }
  return constantTimeEqual(actual, expected);
}

type ParsedPhc = Omit<Argon2Options, "password"> & { type: Argon2Type; expected: Uint8Array };

// The reference implementation's encoding: fixed field order, decimal without leading zeros.
const PHC = /^\$(argon2id|argon2i|argon2d)\$v=19\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function parsePhc(phc: unknown): ParsedPhc | undefined {
  if (typeof phc !== "string") return undefined;
  const match = PHC.exec(phc);
  if (!match) return undefined;
  const [, type, m, t, p, salt, hash] = match;
  if ([m, t, p].some((n) => n.length > 1 && n.startsWith("0"))) return undefined;
  const saltBytes = fromBase64(salt);
  const expected = fromBase64(hash);
  if (!saltBytes || !expected) return undefined;
  return {
    type: type as Argon2Type,
    memorySize: Number(m),
    iterations: Number(t),
    parallelism: Number(p),
    salt: saltBytes,
    hashLength: expected.length,
    expected,
  };
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false; // lengths are public: both come from the PHC string
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Standard base64 without padding, as PHC strings use. */
function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined; // no base64 string has this length
  const binary = atob(text + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
