import type { Context } from "hono";
import type { AppEnv, Bindings, EnvVars } from "../env.ts";
import type { Project } from "../projects/projects.ts";
import type { AuthTokens } from "../../durable-objects/auth-tokens.ts";
import { authDatabase, type AuthDb } from "./auth-db.ts";
import { projectAuth, type ProjectAuth } from "./project-auth.ts";

/** What every end-user auth operation works with, for the project named by the request. */
export type AuthContext = {
  config: EnvVars;
  env: Bindings;
  project: Project;
  db: AuthDb;
  /** The project's auth settings (keys, allowed origins), loaded on first need. */
  settings(): Promise<ProjectAuth>;
  /** The project's AuthTokens object. */
  tokens: DurableObjectStub<AuthTokens>;
  /** Work that finishes after the response (email delivery whose timing must not show). */
  background(work: Promise<unknown>): void;
};

export async function authContext(c: Context<AppEnv>): Promise<AuthContext> {
  const config = c.get("config");
  const project = c.get("project")!;
  let settings: Promise<ProjectAuth> | undefined;
  return {
    config,
    env: c.env,
    project,
    db: await authDatabase(config, project),
    settings: () => (settings ??= projectAuth(config, project.id)),
    tokens: c.env.AUTH_TOKENS.get(c.env.AUTH_TOKENS.idFromName(project.id)),
    background: (work) =>
      c.executionCtx.waitUntil(
        work.catch((err) => console.error(JSON.stringify({ level: "error", request_id: c.get("requestId"), project: project.slug, error: String(err?.cause ?? err) }))),
      ),
  };
}
