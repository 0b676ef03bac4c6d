import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env.ts";
import { ApiError, badRequest, notFound } from "../errors.ts";
import { authorizeRepo } from "../git/repo-access.ts";
import { RepoStore } from "../git/repo-store.ts";
import { advertisement, type Service } from "../git/advertise.ts";
import { receivePack } from "../git/receive-pack.ts";
import { readUploadRequest, uploadPack } from "../git/upload-pack.ts";
import { PktError } from "../git/pkt-line.ts";
import { serveV2, v2Advertisement, wantsV2 } from "../git/protocol-v2.ts";
import { COMPACT_AT_PACKS, compactInBackground } from "../git/compact.ts";

// Smart HTTP under GIT_ROOT (gitprotocol-http):
//   GET  {git_url}/info/refs?service=git-upload-pack|git-receive-pack
//   POST {git_url}/git-upload-pack   POST {git_url}/git-receive-pack

const ROUTE = /^\/([^/]+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** The path below GIT_ROOT's path, or null when the request is not for the git hosting. */
function gitPath(gitRoot: string, url: URL): string | null {
  const base = new URL(gitRoot).pathname.replace(/\/$/, "");
  return url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : null;
}

/** Answers git's requests; any other request goes on to the API. */
export const gitHosting = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  const path = gitPath(c.get("config").GIT_ROOT, url);
  const m = path ? ROUTE.exec(path) : null;
  if (!m) return next();
  const [, slug, action] = m as unknown as [string, string, string];
  const access = await authorizeRepo(c.env, c.get("config"), c.req.header("authorization"), slug);
  const { project } = access;
  if (access.account) c.set("accountId", access.account.id);
  c.set("projectSlug", project.slug);
  const pushing = action === "git-receive-pack" || url.searchParams.get("service") === "git-receive-pack";
  if (pushing && !access.canPush) throw new ApiError(403, "Deploy tokens can clone and fetch but not push; push with your account's API key.", { code: "read_only" });
  const store = await new RepoStore(c.env, project.id, project.slug).open();
  const noCache = { "Cache-Control": "no-cache, max-age=0, must-revalidate" };

  if (action === "info/refs") {
    if (c.req.method !== "GET") throw notFound("Use GET for info/refs.");
    const service = url.searchParams.get("service");
    if (service !== "git-upload-pack" && service !== "git-receive-pack") throw badRequest("Only the smart protocol is served: add ?service=git-upload-pack or git-receive-pack (git does this itself).");
    // Fetches speak v2 when the client asks for it; pushes stay on v0, as with git's own server.
    const v2 = service === "git-upload-pack" && wantsV2(c.req.header("git-protocol"));
    const body = v2 ? v2Advertisement() : advertisement(service as Service, store.snapshot);
    return new Response(body, { headers: { "Content-Type": `application/x-${service}-advertisement`, ...noCache } });
  }
  if (c.req.method !== "POST") throw notFound(`Use POST for ${action}.`);
  if (c.req.header("content-type") !== `application/x-${action}-request`) throw badRequest(`Send Content-Type: application/x-${action}-request.`);
  let body = c.req.raw.body ?? new ReadableStream<Uint8Array>({ start: (ctl) => ctl.close() });
  // git compresses large negotiation requests.
  if (c.req.header("content-encoding") === "gzip") body = body.pipeThrough(new DecompressionStream("gzip"));
  const headers = { "Content-Type": `application/x-${action}-result`, ...noCache };
  try {
    if (action === "git-receive-pack") {
      const report = await receivePack(store, body, access.actor);
      if (store.snapshot.packs.length + 1 >= COMPACT_AT_PACKS) c.executionCtx.waitUntil(compactInBackground(c.env, project));
      return new Response(report, { headers });
    }
    if (wantsV2(c.req.header("git-protocol"))) return new Response(await serveV2(store, body), { headers });
    return new Response(await uploadPack(store, await readUploadRequest(body)), { headers });
  } catch (err) {
    if (err instanceof PktError) throw badRequest(`git protocol error: ${err.message}`, "git_protocol");
    throw err;
  }
});
