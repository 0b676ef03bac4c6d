import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { notFound } from "../errors.ts";
import { PresignError, verifyPresigned } from "../storage/presign.ts";
import { s3Target } from "../storage/objects.ts";
import { serveObject } from "../storage/object-response.ts";
import { storePresignedUpload } from "../storage/local-uploads.ts";

// {api_root}/s3/{bucket}/{key}: the local stand-in for R2's S3 endpoint. It answers the
// presigned GET, HEAD and PUT requests our signer makes (or any SigV4 client makes with
// the same credentials), backed by the BUCKET binding. Errors are S3's XML, as R2's are.
// Only with STORAGE_PROVIDER=local; in production the URLs point at R2 itself.

function s3Error(status: number, code: string, message: string, requestId: string): Response {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message.replace(/[<>&]/g, "")}</Message><RequestId>${requestId}</RequestId></Error>`;
  return new Response(xml, { status, headers: { "Content-Type": "application/xml", "Cache-Control": "no-store" } });
}

export const localS3Routes = new Hono<AppEnv>();

localS3Routes.use("*", async (c, next) => {
  if (c.get("config").STORAGE_PROVIDER !== "local") throw notFound("No such endpoint. See the API reference at /docs.");
  await next();
});

localS3Routes.on(["GET", "HEAD", "PUT"], "/*", async (c) => {
  const config = c.get("config");
  const target = s3Target(config);
  const requestId = c.get("requestId");
  let key: string;
  try {
    ({ key } = await verifyPresigned(target, c.req.raw));
  } catch (err) {
    if (err instanceof PresignError) return s3Error(403, err.code, err.message, requestId);
    throw err;
  }
  if (!key) return s3Error(404, "NoSuchBucket", "The specified bucket does not exist.", requestId);
  if (c.req.method === "PUT") {
    const length = c.req.header("content-length");
    if (length === undefined) return s3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.", requestId);
    const stored = await storePresignedUpload(c.env, config, key, c.req.raw, Number(length));
    return new Response(null, { status: 200, headers: { ETag: stored.httpEtag } });
  }
  const response = await serveObject(c.env.BUCKET, key, c.req.raw, { cacheControl: "private, max-age=0" });
  return response ?? s3Error(404, "NoSuchKey", "The specified key does not exist.", requestId);
});
