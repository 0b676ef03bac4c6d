import { z } from "zod";
import type { Account } from "./accounts/accounts.ts";
import type { Project } from "./projects/projects.ts";
import type { RateLimiter } from "../durable-objects/rate-limiter.ts";
import type { AuthTokens } from "../durable-objects/auth-tokens.ts";
import type { KvStore } from "../durable-objects/kv-store.ts";
import type { GitRepo, GitEventMessage } from "../durable-objects/git-repo.ts";
import type { DeployCoordinator } from "../durable-objects/deploy-coordinator.ts";
import type { DeployQueueMessage } from "./deploy/queue-message.ts";

/**
 * The Worker's configuration: wrangler.toml [vars] plus secrets. Checked once per
 * isolate so a missing variable fails with a message naming it, not deep in a handler.
 */
export const EnvVars = z.object({
  API_ROOT: z.string().url(),
  /** Domain whose subdomains are project sites (also the CORS allow-list). */
  SITES_DOMAIN: z.string().min(1),
  /** A project's site address, `{slug}` replaced: https://{slug}.slipway.site */
  SITE_URL_TEMPLATE: z.string().includes("{slug}"),
  GIT_ROOT: z.string().url(),
  APPS_DOMAIN: z.string().min(1),
  /** "local" provisions with CREATE ROLE/DATABASE on the local server; "neon" uses the Neon API. */
  PROVISIONER: z.enum(["local", "neon"]),
  /** host:port of the local Neon protocol proxy; empty in production. */
  NEON_LOCAL_PROXY: z.string().default(""),
  /** Control-plane database. */
  DATABASE_URL: z.string().min(1),
  /** Superuser connection used by the local provisioner (local only). */
  PROVISIONER_DATABASE_URL: z.string().default(""),
  /** Neon API key and project, used by the neon provisioner (production only). */
  NEON_API_KEY: z.string().default(""),
  NEON_API_URL: z.string().url().default("https://console.neon.tech/api/v2"),
  /** Neon region of new project databases, and the organisation that owns them (if the key needs one). */
  NEON_REGION: z.string().default("aws-us-east-2"),
  NEON_ORG_ID: z.string().default(""),
  JWT_SECRET: z.string().min(32, "JWT_SECRET must be at least 32 characters"),
  /** 32 bytes, base64: encrypts stored API-key copies and database passwords (AES-256-GCM). */
  ENCRYPTION_KEY: z.string().min(40, "ENCRYPTION_KEY must be 32 random bytes in base64"),
  ADMIN_TOKEN: z.string().min(16, "ADMIN_TOKEN must be at least 16 characters"),
  /** Seconds a measured database size is trusted before it is measured again. */
  DB_SIZE_TTL_SECONDS: z.coerce.number().int().min(0).default(60),
  /**
   * Who answers presigned object URLs: "r2" (production: R2's S3 endpoint) or "local"
   * (the Worker itself answers them under /s3, backed by the BUCKET binding).
   */
  STORAGE_PROVIDER: z.enum(["r2", "local"]).default("r2"),
  /** S3 endpoint presigned URLs point at: https://<account id>.r2.cloudflarestorage.com, or {API_ROOT}/s3 locally. */
  STORAGE_S3_ENDPOINT: z.string().url(),
  /** The bucket behind the BUCKET binding, as the S3 endpoint names it. */
  STORAGE_BUCKET: z.string().min(1),
  STORAGE_REGION: z.string().min(1).default("auto"),
  /** R2 S3 API credentials (secrets); locally generated. */
  STORAGE_ACCESS_KEY_ID: z.string().min(1, "STORAGE_ACCESS_KEY_ID is the R2 S3 access key id (a secret)"),
  STORAGE_SECRET_ACCESS_KEY: z.string().min(1, "STORAGE_SECRET_ACCESS_KEY is the R2 S3 secret (a secret)"),
  /** Seconds a measured storage usage is trusted before R2 is listed again. */
  STORAGE_USAGE_TTL_SECONDS: z.coerce.number().int().min(0).default(60),
  /** How end-user auth emails leave: "outbox" keeps them for GET /dev/outbox (local), "http" posts to EMAIL_HTTP_URL. */
  EMAIL_PROVIDER: z.enum(["outbox", "http"]).default("http"),
  /** The HTTP email API (Resend-compatible: {from, to, subject, text, html}, bearer EMAIL_HTTP_TOKEN). */
  EMAIL_HTTP_URL: z.string().default("https://api.resend.com/emails"),
  EMAIL_HTTP_TOKEN: z.string().default(""),
  EMAIL_FROM: z.string().default("Slipway <no-reply@slipway.dev>"),
  /** The container-runner's job API; the deploy queue's consumer hands jobs to it. */
  RUNNER_URL: z.string().url(),
  /** Shared with the container-runner: signs jobs and its status reports (HMAC-SHA256). */
  RUNNER_SECRET: z.string().min(32, "RUNNER_SECRET must be at least 32 characters"),
  /** A deployed app's address, `{slug}` replaced: https://{slug}.slipway.app */
  APP_URL_TEMPLATE: z.string().includes("{slug}"),
  /** A deploy whose runner has not reported for this long ends failed. */
  DEPLOY_STALE_SECONDS: z.coerce.number().int().min(5).default(120),
});
export type EnvVars = z.infer<typeof EnvVars>;

export type Bindings = EnvVars & {
  BUCKET: R2Bucket;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  AUTH_TOKENS: DurableObjectNamespace<AuthTokens>;
  KV_STORE: DurableObjectNamespace<KvStore>;
  GIT_REPO: DurableObjectNamespace<GitRepo>;
  GIT_EVENTS: Queue<GitEventMessage>;
  DEPLOY_COORDINATOR: DurableObjectNamespace<DeployCoordinator>;
  DEPLOY_QUEUE: Queue<DeployQueueMessage>;
};

export type AppEnv = {
  Bindings: Bindings;
  Variables: {
    requestId: string;
    config: EnvVars;
    accountId?: string;
    /** Set by apiKeyAuth. */
    account?: Account;
    /** Set by projectScope for /{slug}/… routes. */
    project?: Project;
    projectSlug?: string;
  };
};

const checked = new WeakMap<object, EnvVars>();

/** Validates the environment once per isolate and returns the typed configuration. */
export function loadConfig(env: Record<string, unknown>): EnvVars {
  const cached = checked.get(env);
  if (cached) return cached;
  const parsed = EnvVars.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Slipway is misconfigured: ${names}`);
  }
  checked.set(env, parsed.data);
  return parsed.data;
}
