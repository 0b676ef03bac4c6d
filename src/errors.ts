import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import type { AppEnv } from "./env.ts";

/**
 * The one error type of the API. `detail` is safe to show the caller and says what to
 * do; `cause` is for the log only.
 */
export class ApiError extends HTTPException {
  readonly detail: string;
  readonly code: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, detail: string, opts: { code?: string; cause?: unknown; headers?: Record<string, string> } = {}) {
    super(status, { message: detail, cause: opts.cause });
    this.detail = detail;
    this.code = opts.code;
    this.headers = opts.headers ?? {};
  }
}

export const badRequest = (detail: string, code = "bad_request") => new ApiError(400, detail, { code });
export const unauthorized = (detail: string) => new ApiError(401, detail, { code: "unauthorized" });
export const notFound = (detail: string) => new ApiError(404, detail, { code: "not_found" });
export const conflict = (detail: string) => new ApiError(409, detail, { code: "conflict" });
export const planLimit = (detail: string) => new ApiError(402, detail, { code: "plan_limit" });
/** An outside service failed: 502/503 naming the service, never a bare 500. */
export const serviceUnavailable = (service: string, cause: unknown) =>
  new ApiError(503, `${service} is unavailable right now; retry in a few seconds.`, { code: "service_unavailable", cause });

/** Turns a zod failure into one readable sentence: `field: problem; field: problem`. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

/**
 * A failure to reach Postgres (as opposed to an SQL error, which carries a SQLSTATE
 * code): the driver could not connect, or the connection dropped mid-query.
 */
function isDatabaseConnectionFailure(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; message?: string } | null;
  if (!e || typeof e !== "object" || e.code) return false;
  return e.name === "NeonDbError" || /Connection terminated|Network connection lost|connecting to database/i.test(e.message ?? "");
}

/** Writes every error as `{detail, code, request_id}` with no-store caching. */
export function errorResponse(c: Context<AppEnv>, err: unknown): Response {
  const requestId = c.get("requestId") ?? "";
  let status: ContentfulStatusCode = 500;
  let detail = "Internal server error. Retry, and contact support with the request_id if it persists.";
  let code = "internal_error";
  let headers: Record<string, string> = {};
  if (err instanceof ApiError) {
    ({ detail, headers } = err);
    status = err.status as ContentfulStatusCode;
    code = err.code ?? code;
    if (err.cause) console.error(JSON.stringify({ level: "warn", request_id: requestId, detail, cause: String(err.cause) }));
  } else if (err instanceof ZodError) {
    status = 400;
    detail = describeZodError(err);
    code = "invalid_request";
  } else if (err instanceof HTTPException) {
    status = err.status as ContentfulStatusCode;
    detail = err.message || "Request failed.";
    code = status === 401 ? "unauthorized" : "bad_request";
  } else if (isDatabaseConnectionFailure(err)) {
    status = 503;
    detail = "The database is unavailable right now; retry in a few seconds.";
    code = "database_unavailable";
    console.error(JSON.stringify({ level: "warn", request_id: requestId, detail, cause: String((err as Error).message) }));
  } else {
    const e = err as Error;
    console.error(JSON.stringify({ level: "error", request_id: requestId, error: e?.message, stack: e?.stack }));
  }
  return c.json({ detail, code, request_id: requestId }, status, { "Cache-Control": "no-store", ...headers });
}
