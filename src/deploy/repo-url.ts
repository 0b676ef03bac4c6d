import type { EnvVars } from "../env.ts";
import { badRequest } from "../errors.ts";
import { gitRepoUrl } from "../projects/addresses.ts";

/**
 * Which repository a deploy clones. Without repo_url: the project's own repository. An
 * outside repo_url must be https, carry no credentials and name no loopback, private or
 * link-local address (the runner checks the resolved addresses again before cloning);
 * the platform's own git host is the one exception.
 */
export function chooseRepository(config: EnvVars, slug: string, repoUrl: string | undefined): { repoUrl: string; external: boolean } {
  const own = gitRepoUrl(config, slug);
  if (!repoUrl || repoUrl === own) return { repoUrl: own, external: false };
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    throw badRequest("repo_url must be a full https:// URL of a git repository.", "invalid_repo_url");
  }
  const gitHost = new URL(config.GIT_ROOT).host;
  if (url.host === gitHost) {
    if (url.username || url.password) throw badRequest("repo_url must not carry credentials.", "invalid_repo_url");
    return { repoUrl: url.toString(), external: false };
  }
  if (url.protocol !== "https:") throw badRequest("repo_url must be an https:// address (no http, ssh, git or file URLs).", "invalid_repo_url");
  if (url.username || url.password) throw badRequest("repo_url must not carry credentials; only public repositories can be deployed from outside.", "invalid_repo_url");
  if (isLocalHostName(url.hostname)) throw badRequest("repo_url must point at a public host, not a loopback, private or link-local address.", "invalid_repo_url");
  return { repoUrl: url.toString(), external: true };
}

function isLocalHostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".") && !host.includes(":")) return true;
  const v4 = host.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || a >= 224;
  }
  if (host.includes(":")) return host === "::" || host === "::1" || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith("::ffff:");
  return false;
}
