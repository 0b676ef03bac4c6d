import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError, describeZodError } from "../errors.ts";

/** A router for one API area: request validation failures become 400 `{detail}`. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw new ApiError(400, describeZodError(result.error), { code: "invalid_request" });
    },
  });
}

export const ErrorBody = z
  .object({
    detail: z.string().openapi({ example: "Project \"my-app\" not found." }),
    code: z.string().optional(),
    request_id: z.string().optional(),
  })
  .openapi("Error");

/** Standard error responses, for the OpenAPI document. */
export function errors(...statuses: number[]) {
  const text: Record<number, string> = {
    400: "Invalid input or SQL error",
    401: "Missing or invalid credentials",
    402: "Plan limit exceeded",
    404: "Not found",
    409: "Already exists",
    413: "Too large",
    429: "Rate limited",
    503: "A backing service is unavailable",
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: text[s] ?? "Error", content: { "application/json": { schema: ErrorBody } } }]),
  );
}

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const ApiKeySecurity = [{ ApiKey: [] }];
export const BearerSecurity = [{ Bearer: [] }];
