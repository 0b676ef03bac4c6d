import type { EnvVars } from "../env.ts";
import type { Deployment } from "./deployments.ts";

/** The public address of a project's deployed app. */
export function appUrl(config: EnvVars, slug: string): string {
  return config.APP_URL_TEMPLATE.replaceAll("{slug}", slug);
}

/** A deployment as the API shows it. */
export function deploymentView(config: EnvVars, slug: string, d: Deployment) {
  return {
    deployment_id: d.id,
    status: d.status,
    url: appUrl(config, slug),
    trigger: d.trigger,
    repo_url: d.repo_url,
    branch: d.branch,
    commit: d.commit_sha,
    stack: d.stack,
    detail: d.detail,
    created_at: new Date(d.created_at).toISOString(),
    updated_at: new Date(d.updated_at).toISOString(),
  };
}
