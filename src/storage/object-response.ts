/**
 * Answers GET and HEAD for one R2 object the way a good static host does: ETag and
 * If-None-Match → 304, a single byte Range → 206 (unsatisfiable → 416), Last-Modified,
 * Accept-Ranges. Shared by site serving and the local S3 endpoint.
 */

export type ServeOptions = {
  /** HTTP status for a full answer (a site's 404.html is served with 404). */
  status?: number;
  cacheControl: string;
  /** Content-Type when the object has none stored. */
  fallbackContentType?: string;
};

type Range = { offset: number; length: number } | "unsatisfiable" | null;

/** RFC 9110 §14: one `bytes=` range; several ranges or bad syntax are ignored (full 200). */
export function parseRange(header: string | null, size: number): Range {
  const m = header?.trim().match(/^bytes=(\d*)-(\d*)$/);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return size === 0 ? "unsatisfiable" : { offset: size - length, length };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { offset: start, length: end - start + 1 };
}

/** Weak comparison of If-None-Match against the object's ETag (RFC 9110 §13.1.2). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

function baseHeaders(object: R2Object, opts: ServeOptions): Headers {
  const headers = new Headers();
  headers.set("Content-Type", object.httpMetadata?.contentType || opts.fallbackContentType || "application/octet-stream");
  headers.set("ETag", object.httpEtag);
  headers.set("Last-Modified", object.uploaded.toUTCString());
  headers.set("Cache-Control", opts.cacheControl);
  headers.set("Accept-Ranges", "bytes");
  return headers;
}

/** The response for `key`, or null when there is no such object. */
export async function serveObject(bucket: R2Bucket, key: string, request: Request, opts: ServeOptions): Promise<Response | null> {
  const status = opts.status ?? 200;
  const ifNoneMatch = request.headers.get("if-none-match");
  const rangeHeader = status === 200 ? request.headers.get("range") : null;
  if (request.method === "HEAD" || ifNoneMatch || rangeHeader) {
    const head = await bucket.head(key);
    if (!head) return null;
    const headers = baseHeaders(head, opts);
    if (ifNoneMatch && status === 200 && etagMatches(ifNoneMatch, head.httpEtag)) {
      headers.delete("Content-Type");
      return new Response(null, { status: 304, headers });
    }
    const range = rangeHeader ? parseRange(rangeHeader, head.size) : null;
    if (range === "unsatisfiable") {
      headers.set("Content-Range", `bytes */${head.size}`);
      return new Response(null, { status: 416, headers });
    }
    if (request.method === "HEAD") {
      headers.set("Content-Length", String(head.size));
      return new Response(null, { status, headers });
    }
    if (range) {
      const part = await bucket.get(key, { range: range });
      if (!part) return null;
      headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
      headers.set("Content-Length", String(range.length));
      return new Response(part.body, { status: 206, headers });
    }
  }
  const object = await bucket.get(key);
  if (!object) return null;
  const headers = baseHeaders(object, opts);
  headers.set("Content-Length", String(object.size));
  return new Response(object.body, { status, headers });
}
