import type { Bindings, EnvVars } from "../env.ts";
import { ApiError, notFound } from "../errors.ts";
import { findAccountByApiKey, type Account } from "../accounts/accounts.ts";
import { findProjectBySlug, findProjectForAccount, type Project } from "../projects/projects.ts";
import { DEPLOY_TOKEN_PREFIX, isDeployToken } from "./deploy-tokens.ts";
import { SLUG_PATTERN } from "../projects/slug.ts";

/** Who is using a repository over git, and whether they may push. */
export type RepoAccess = { project: Project; account: Account | null; actor: string; canPush: boolean };

const challenge = (detail: string) =>
  new ApiError(401, detail, { code: "unauthorized", headers: { "WWW-Authenticate": 'Basic realm="Slipway git", charset="UTF-8"' } });

/**
 * Who may use a repository over git: HTTP Basic with any user name and, as the password,
 * the account's API key (read and push) or one of the project's deploy tokens (read
 * only). Without valid credentials the answer is 401 with WWW-Authenticate so git asks
 * for them; another account's repository is 404, like one that does not exist.
 */
export async function authorizeRepo(env: Bindings, config: EnvVars, authorization: string | undefined, slug: string): Promise<RepoAccess> {
  const key = basicPassword(authorization);
  if (!key) throw challenge("Authentication required: use any user name and your account's API key (or a deploy token) as the password.");
  if (key.startsWith(DEPLOY_TOKEN_PREFIX)) {
    const project = SLUG_PATTERN.test(slug) ? await findProjectBySlug(config, slug) : null;
    if (!project || !(await isDeployToken(env, project, key))) throw challenge("Invalid deploy token for this repository.");
    return { project, account: null, actor: "deploy-token", canPush: false };
  }
  const account = await findAccountByApiKey(config, key);
  if (!account) throw challenge("Invalid credentials: use your account's API key as the password (any user name).");
  if (!SLUG_PATTERN.test(slug)) throw notFound(`Repository "${slug}.git" not found.`);
  const project = await findProjectForAccount(config, account.id, slug).catch((err) => {
    if (err instanceof ApiError && err.status === 404) throw notFound(`Repository "${slug}.git" not found.`);
    throw err;
  });
  return { project, account, actor: `git:${account.id}`, canPush: true };
}

function basicPassword(header: string | undefined): string | null {
  const m = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (!m) return null;
  let decoded: string;
  try {
    decoded = atob(m[1]!);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}
