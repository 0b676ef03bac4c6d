import type { EnvVars } from "../env.ts";

/** Public addresses of a project, all from configuration (see ARCHITECTURE "Addresses"). */

export function gitRepoUrl(config: EnvVars, slug: string): string {
  return `${config.GIT_ROOT.replace(/\/$/, "")}/${slug}.git`;
}

export function siteUrl(config: EnvVars, slug: string): string {
  return config.SITE_URL_TEMPLATE.replace("{slug}", slug);
}
