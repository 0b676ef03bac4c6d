import { inject } from "vitest";
import { randomUUID } from "node:crypto";

/** One test helper: an account with its API key and a client speaking as it. */

export const apiRoot = inject("apiRoot");
export const adminToken = inject("adminToken");
export const superuserUrl = inject("superuserUrl");
export const BASE = `${apiRoot}/v1/project`;

export type Reply = { status: number; body: any; headers: Headers };

export async function request(method: string, url: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    payload = JSON.stringify(opts.body);
  }
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

export function uniqueEmail(tag = "user"): string {
  return `${tag}-${randomUUID().slice(0, 8)}@example.test`;
}

export function uniqueSlug(tag = "p"): string {
  return `${tag}-${randomUUID().slice(0, 8)}`;
}

export type TestAccount = {
  email: string;
  password: string;
  token: string;
  apiKey: string;
  id: string;
  /** Calls {base_url}{path} with this account's API key. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
};

export async function newAccount(opts: { plan?: string } = {}): Promise<TestAccount> {
  const email = uniqueEmail();
  const password = "correct horse battery";
  const signup = await request("POST", `${apiRoot}/api/auth/signup`, { body: { email, password } });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
  const me = await request("GET", `${apiRoot}/api/auth/me`, { headers: { Authorization: `Bearer ${signup.body.token}` } });
  const account: TestAccount = {
    email,
    password,
    token: signup.body.token,
    apiKey: me.body.api_key,
    id: me.body.id,
    api: (method, path, body, headers) => request(method, `${BASE}${path}`, { body, headers: { "X-API-Key": account.apiKey, ...headers } }),
  };
  if (opts.plan) await admin("PATCH", `/accounts/${email}`, { plan: opts.plan });
  return account;
}

/** Calls /admin{path} with the admin token. */
export async function admin(method: string, path: string, body?: unknown): Promise<Reply> {
  const reply = await request(method, `${apiRoot}/admin${path}`, { body, headers: { Authorization: `Bearer ${adminToken}` } });
  return reply;
}

/** Creates a project for the account and returns the creation response body. */
export async function newProject(account: TestAccount, name = "Test Project"): Promise<any> {
  const reply = await account.api("POST", "/projects", { name, slug: uniqueSlug() });
  if (reply.status !== 201) throw new Error(`project creation failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Runs SQL on a project and returns the reply. */
export function sql(account: TestAccount, slug: string, query: string, params?: unknown[]): Promise<Reply> {
  return account.api("POST", `/${slug}/sql`, params === undefined ? { query } : { query, params });
}

/** Calls {base_url}/{slug}/auth{path} as the project's app in a browser would: with its publishable key. */
export function asApp(slug: string, publishableKey: string) {
  return (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(method, `${BASE}/${slug}/auth${path}`, { body, headers: { "X-Publishable-Key": publishableKey, ...headers } });
}

/** The emails the local outbox holds for an address, oldest first. */
export async function outbox(to: string): Promise<{ to: string; subject: string; text: string; html: string; created_at: string }[]> {
  const reply = await request("GET", `${apiRoot}/dev/outbox?to=${encodeURIComponent(to)}`);
  if (reply.status !== 200) throw new Error(`outbox: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.messages;
}

/** Waits for the `count`-th email to an address (some are delivered after the response). */
export async function waitForEmail(to: string, count = 1): Promise<{ to: string; subject: string; text: string; html: string; created_at: string }> {
  for (let i = 0; i < 200; i++) {
    const messages = await outbox(to);
    if (messages.length >= count) return messages[count - 1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no email #${count} for ${to} arrived`);
}
