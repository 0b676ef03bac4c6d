import { SignJWT, jwtVerify } from "jose";

/** Dashboard bearer tokens: HS256 JWTs naming the account, valid for a week. */
const ISSUER = "slipway";
const AUDIENCE = "slipway-dashboard";
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

const secretKey = (secret: string) => new TextEncoder().encode(secret);

export function signSessionToken(accountId: string, secret: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(accountId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${SESSION_TTL_SECONDS}s`)
    .sign(secretKey(secret));
}

/** Returns the account id of a valid token, or null for anything else. */
export async function verifySessionToken(token: string, secret: string): Promise<string | null> {
  try {
    const { payload } = await jwtVerify(token, secretKey(secret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"] });
    return payload.sub ?? null;
  } catch {
    return null;
  }
}
