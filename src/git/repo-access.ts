import type { EnvVars } from "../env.ts";
import { ApiError, notFound } from "../errors.ts";
import { findAccountByApiKey, type Account } from "../accounts/accounts.ts";
import { findProjectForAccount, type Project } from "../projects/projects.ts";
import { SLUG_PATTERN } from "../projects/slug.ts";

/**
 * Who may use a repository over git: HTTP Basic with any user name and the account's API
 * key as the password. Without valid credentials the answer is 401 with WWW-Authenticate
 * so git asks for them; another account's repository is 404, like one that does not exist.
 */
export async function authorizeRepo(config: EnvVars, authorization: string | undefined, slug: string): Promise<{ account: Account; project: Project }> {
  const key = basicPassword(authorization);
  const account = key ? await findAccountByApiKey(config, key) : null;
  if (!account) {
    throw new ApiError(401, key ? "Invalid credentials: use your account's API key as the password (any user name)." : "Authentication required: use any user name and your account's API key as the password.", {
      code: "unauthorized",
      headers: { "WWW-Authenticate": 'Basic realm="Slipway git", charset="UTF-8"' },
    });
  }
  if (!SLUG_PATTERN.test(slug)) throw notFound(`Repository "${slug}.git" not found.`);
  const project = await findProjectForAccount(config, account.id, slug).catch((err) => {
    if (err instanceof ApiError && err.status === 404) throw notFound(`Repository "${slug}.git" not found.`);
    throw err;
  });
  return { account, project };
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
