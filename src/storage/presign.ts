import { AwsV4Signer } from "aws4fetch";
import { timingSafeEqual } from "../platform/crypto.ts";

/**
 * AWS Signature V4 query presigning (the scheme S3 and R2 use for presigned URLs), on
 * aws4fetch. The same module signs URLs in production (pointing at R2's S3 endpoint) and
 * verifies them on the local stand-in, where the Worker itself answers them.
 */

export type S3Target = {
  /** https://<account id>.r2.cloudflarestorage.com, or {API_ROOT}/s3 locally; path-style. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
};

/** SigV4 allows presigned URLs to live from 1 second to 7 days. */
export const PRESIGN_MAX_SECONDS = 7 * 24 * 3600;
/** How far in the future X-Amz-Date may be before a URL is "not yet valid" (clock skew). */
const MAX_SKEW_SECONDS = 15 * 60;

export type PresignedRequest = {
  url: string;
  method: "GET" | "PUT";
  /** Headers the client must send exactly as given (they are signed). */
  headers: Record<string, string>;
  expiresAt: Date;
};

/** S3 URI-encodes each path segment of the key; "/" stays. */
export function encodeKey(key: string): string {
  return key
    .split("/")
    .map((seg) => encodeURIComponent(seg).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`))
    .join("/");
}

export function objectUrl(target: S3Target, key: string): URL {
  return new URL(`${target.endpoint.replace(/\/$/, "")}/${encodeURIComponent(target.bucket)}/${encodeKey(key)}`);
}

/** `20260102T030405Z` for a Date, the form SigV4 wants. */
export function amzDate(at: Date): string {
  return at.toISOString().replace(/[:-]|\.\d{3}/g, "");
}

function parseAmzDate(value: string): Date | null {
  const m = value.match(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/);
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * Presigns one request for `key`. Every header given (Content-Type, Content-Length) is
 * signed, so the holder of the URL must send exactly those values.
 */
export async function presign(
  target: S3Target,
  opts: { method: "GET" | "PUT"; key: string; expiresIn: number; headers?: Record<string, string>; now?: Date },
): Promise<PresignedRequest> {
  const now = opts.now ?? new Date();
  const url = objectUrl(target, opts.key);
  url.searchParams.set("X-Amz-Expires", String(opts.expiresIn));
  const signer = new AwsV4Signer({
    method: opts.method,
    url: url.href,
    headers: opts.headers ?? {},
    accessKeyId: target.accessKeyId,
    secretAccessKey: target.secretAccessKey,
    service: "s3",
    region: target.region,
    datetime: amzDate(now),
    signQuery: true,
    // aws4fetch leaves Content-Type out of signatures by default; we want it bound.
    allHeaders: true,
  });
  const signed = await signer.sign();
  return { url: signed.url.href, method: opts.method, headers: { ...(opts.headers ?? {}) }, expiresAt: new Date(now.getTime() + opts.expiresIn * 1000) };
}

/** Why a presigned request was refused, in S3's own error codes. */
export class PresignError extends Error {
  constructor(readonly code: "AccessDenied" | "SignatureDoesNotMatch" | "InvalidAccessKeyId" | "AuthorizationQueryParametersError", message: string) {
    super(message);
  }
}

/**
 * Checks a presigned request the way S3 does: algorithm and credential scope, our access
 * key, expiry (and a date not too far ahead), every signed header present with the value
 * that was signed, then the signature itself. Returns the decoded object key; throws
 * PresignError otherwise.
 */
export async function verifyPresigned(target: S3Target, request: Request, now = new Date()): Promise<{ key: string }> {
  const url = new URL(request.url);
  const q = url.searchParams;
  const need = (name: string) => {
    const v = q.get(name);
    if (!v) throw new PresignError("AuthorizationQueryParametersError", `Query-string authentication requires ${name}.`);
    return v;
  };
  if (need("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") throw new PresignError("AuthorizationQueryParametersError", "X-Amz-Algorithm must be AWS4-HMAC-SHA256.");
  const credential = need("X-Amz-Credential").split("/");
  const date = need("X-Amz-Date");
  const expires = Number(need("X-Amz-Expires"));
  const signedHeaders = need("X-Amz-SignedHeaders").split(";");
  const signature = need("X-Amz-Signature");

  const [accessKeyId, scopeDate, region, service, terminator] = credential;
  if (credential.length !== 5 || service !== "s3" || terminator !== "aws4_request" || !region) {
    throw new PresignError("AuthorizationQueryParametersError", "X-Amz-Credential must be <key id>/<date>/<region>/s3/aws4_request.");
  }
  if (accessKeyId !== target.accessKeyId) throw new PresignError("InvalidAccessKeyId", "The access key id does not exist in our records.");
  const signedAt = parseAmzDate(date);
  if (!signedAt || scopeDate !== date.slice(0, 8)) throw new PresignError("AuthorizationQueryParametersError", "X-Amz-Date is malformed or does not match the credential scope.");
  if (!Number.isInteger(expires) || expires < 1 || expires > PRESIGN_MAX_SECONDS) {
    throw new PresignError("AuthorizationQueryParametersError", `X-Amz-Expires must be between 1 and ${PRESIGN_MAX_SECONDS} seconds.`);
  }
  if (now.getTime() > signedAt.getTime() + expires * 1000) throw new PresignError("AccessDenied", "Request has expired");
  if (signedAt.getTime() - now.getTime() > MAX_SKEW_SECONDS * 1000) throw new PresignError("AccessDenied", "Request is not yet valid");
  if (!signedHeaders.includes("host")) throw new PresignError("AuthorizationQueryParametersError", "X-Amz-SignedHeaders must include host.");

  // Rebuild the request from what the client actually sent, then sign it again.
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    if (name === "host") continue;
    const value = request.headers.get(name);
    if (value === null) throw new PresignError("AccessDenied", `The signed header ${name} is missing from the request.`);
    headers[name] = value;
  }
  const unsigned = new URL(url);
  unsigned.searchParams.delete("X-Amz-Signature");
  const signer = new AwsV4Signer({
    method: request.method,
    url: unsigned.href,
    headers,
    accessKeyId,
    secretAccessKey: target.secretAccessKey,
    service: "s3",
    region,
    datetime: date,
    signQuery: true,
    allHeaders: true,
  });
  if (signer.signedHeaders !== signedHeaders.join(";")) {
    throw new PresignError("SignatureDoesNotMatch", "X-Amz-SignedHeaders must be lowercase and sorted.");
  }
  const expected = await signer.signature();
  if (!timingSafeEqual(expected, signature)) {
    throw new PresignError("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check the headers you sent (Content-Type must be the one given when the URL was made).");
  }
  return { key: keyFromPath(target, url.pathname) };
}

/** The object key a path-style URL names, or "" when it is not under our bucket. */
export function keyFromPath(target: S3Target, pathname: string): string {
  const base = new URL(target.endpoint).pathname.replace(/\/$/, "");
  const prefix = `${base}/${encodeURIComponent(target.bucket)}/`;
  if (!pathname.startsWith(prefix)) return "";
  try {
    return decodeURIComponent(pathname.slice(prefix.length));
  } catch {
    return "";
  }
}
