import { swaggerUI } from "@hono/swagger-ui";
import type { AppEnv } from "./env.ts";
import { bodyLimit } from "hono/body-limit";
import { ApiError, errorResponse, notFound } from "./errors.ts";
import { requestContext } from "./middleware/request-context.ts";
import { corsPolicy } from "./middleware/cors.ts";
import { apiKeyAuth } from "./middleware/auth.ts";
import { createRouter } from "./routes/router.ts";
import { accountRoutes } from "./routes/accounts.ts";
import { projectRoutes } from "./routes/projects.ts";
import { sqlRoutes } from "./routes/sql.ts";
import { ticketRoutes } from "./routes/tickets.ts";
import { adminRoutes } from "./routes/admin.ts";
import { storageRoutes } from "./routes/storage.ts";
import { siteRoutes } from "./routes/sites.ts";
import { localS3Routes } from "./routes/local-s3.ts";
import { serveSites } from "./sites/serve-site.ts";
import { authRoutes } from "./routes/auth.ts";
import { devRoutes } from "./routes/dev.ts";
import { kvRoutes } from "./routes/kv.ts";
import { gitHosting } from "./routes/git-http.ts";
import { gitFileRoutes } from "./routes/git-files.ts";
import { gitWebhookRoutes } from "./routes/git-webhooks.ts";
import { gitDeployTokenRoutes } from "./routes/git-deploy-tokens.ts";
import { deployRoutes } from "./routes/deploy.ts";
import { runnerCallbackRoutes } from "./routes/runner-callback.ts";

/** The base of the project API ({base_url}); the major version is in the path. */
export const BASE_PATH = "/v1/project";

/** Largest JSON body the API reads (a 5 MB file in base64 fits); bigger bodies go to presigned URLs. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
const jsonBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, `Request body is over ${MAX_BODY_BYTES / 1024 / 1024} MiB. Upload large files through a presigned URL.`, { code: "body_too_large" });
  },
});

const projectApi = createRouter();
projectApi.use("*", jsonBodyLimit, apiKeyAuth);
projectApi.route("/", projectRoutes).route("/", sqlRoutes).route("/", ticketRoutes);
projectApi.route("/", storageRoutes).route("/", siteRoutes);
projectApi.route("/", kvRoutes);
projectApi.route("/", gitFileRoutes).route("/", gitWebhookRoutes).route("/", gitDeployTokenRoutes);
projectApi.route("/", deployRoutes);

export const app = createRouter();
app.use("*", requestContext, corsPolicy);
// Requests to a project's site address ({site_url}) are the site's, not the API's.
app.use("*", serveSites);
// Then git's smart HTTP requests under GIT_ROOT.
app.use("*", gitHosting);

app.use("/api/*", jsonBodyLimit);
app.use("/admin/*", jsonBodyLimit);
app.route("/api/auth", accountRoutes);
// End-user auth is mounted before projectApi: some of its routes take a publishable key instead of X-API-Key.
app.route(BASE_PATH, authRoutes);
app.route(BASE_PATH, projectApi);
app.route("/admin", adminRoutes);
app.route("/s3", localS3Routes);
app.route("/dev", devRoutes);
app.use("/internal/*", jsonBodyLimit);
app.route("/internal/runner", runnerCallbackRoutes);

app.get("/health", (c) => c.json({ ok: true }));
app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", { type: "apiKey", in: "header", name: "X-API-Key" });
app.openAPIRegistry.registerComponent("securitySchemes", "PublishableKey", { type: "apiKey", in: "header", name: "X-Publishable-Key" });
app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer", bearerFormat: "JWT" });
app.doc31("/openapi.json", (c) => ({
  openapi: "3.1.0",
  info: { title: "Slipway API", version: "2.0.0", description: "Projects with PostgreSQL, storage, sites, git, deploys, auth, key-value and tickets." },
  servers: [{ url: c.get("config").API_ROOT }],
}));
app.get("/docs", swaggerUI({ url: "/openapi.json" }));

app.notFound(() => {
  throw notFound("No such endpoint. See the API reference at /docs.");
});
app.onError((err, c) => errorResponse(c, err));
