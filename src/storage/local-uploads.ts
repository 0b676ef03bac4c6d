import type { Bindings, EnvVars } from "../env.ts";
import { parseKey } from "./object-keys.ts";
import { markStorageChanged } from "./usage.ts";
import { forgetSiteRules } from "../sites/site-cache.ts";

/**
 * Writes the body of a verified presigned PUT to R2 (the local S3 endpoint's upload).
 * The stored Content-Type is the one the client sent, which the signature bound to the
 * one given when the URL was made.
 */
export async function storePresignedUpload(env: Bindings, config: EnvVars, key: string, request: Request, length: number): Promise<R2Object> {
  const httpMetadata = { contentType: request.headers.get("content-type") ?? "application/octet-stream" };
  let stored: R2Object;
  if (!request.body || length === 0) {
    stored = await env.BUCKET.put(key, new Uint8Array(0), { httpMetadata });
  } else {
    // R2 needs a body of known length to stream it.
    const { readable, writable } = new FixedLengthStream(length);
    const [, result] = await Promise.all([request.body.pipeTo(writable), env.BUCKET.put(key, readable, { httpMetadata })]);
    stored = result;
  }
  const owner = parseKey(key);
  if (owner) {
    await markStorageChanged(config, owner.projectId);
    if (owner.area === "site") forgetSiteRules(owner.projectId);
  }
  return stored;
}
