import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { createRouter, errors, json, jsonBody, ApiKeySecurity } from "./router.ts";
import { projectScope } from "../middleware/project-scope.ts";
import { SlugParam } from "./projects.ts";
import { enforceRateLimit } from "../limits/rate-limit.ts";
import { kvOperationsRule } from "../limits/rules.ts";
import { ApiError } from "../errors.ts";
import * as body from "../kv/commands.ts";
import { KV_LIMITS } from "../kv/limits.ts";
import { kvQuotaBytes, kvUsage, publishMessage, runKvCommands, subscribeChannels } from "../kv/kv-store.ts";
import type { KvCommand } from "../kv/commands.ts";

// {base_url}/{slug}/redis/…: POST set get delete mget mset expire ttl incr decr lpush rpush
//   lpop rpop lrange keys flush publish pipeline · GET usage · GET subscribe (WebSocket)

const Ok = z.object({ ok: z.boolean() });
const ValueReply = z.object({ value: z.unknown() });
const Deleted = z.object({ deleted: z.number().int() });
const Length = z.object({ length: z.number().int() });
const Values = z.object({ values: z.array(z.unknown()) });
const KvUsage = z.object({ key_count: z.number().int(), memory_bytes: z.number().int(), memory_human: z.string(), quota_bytes: z.number().int(), quota_human: z.string() }).openapi("KvUsage");

/** The plain operations: one body schema, one reply schema, one command each. */
const OPERATIONS = {
  set: [body.SetBody, Ok, "Set a key to a JSON value"],
  get: [body.KeyBody, ValueReply, "Get a key's value (null when missing)"],
  delete: [body.DeleteBody, Deleted, "Delete keys"],
  mget: [body.MgetBody, z.object({ values: z.record(z.string(), z.unknown()) }), "Get up to 50 keys"],
  mset: [body.MsetBody, Ok, "Set up to 50 keys with one ttl"],
  expire: [body.ExpireBody, Ok, "Set a key's ttl (ok false when the key is missing)"],
  ttl: [body.KeyBody, z.object({ ttl: z.number().int() }), "Seconds until a key expires (-2 when missing)"],
  incr: [body.CounterBody, z.object({ value: z.number().int() }), "Atomically add to an integer (a missing key counts from 0)"],
  decr: [body.CounterBody, z.object({ value: z.number().int() }), "Atomically subtract from an integer"],
  lpush: [body.PushBody, Length, "Push values at the head of a list"],
  rpush: [body.PushBody, Length, "Push values at the tail of a list"],
  lpop: [body.KeyBody, ValueReply, "Remove and return the head of a list"],
  rpop: [body.KeyBody, ValueReply, "Remove and return the tail of a list"],
  lrange: [body.RangeBody, Values, "A range of a list (Redis LRANGE indices)"],
  keys: [body.KeysBody, z.object({ keys: z.array(z.string()), cursor: z.string().nullable() }), "Scan keys matching a glob, a page at a time"],
} as const;

/** Checks the plan, counts `cost` operations against the hourly limit, then runs the commands. */
async function run(c: Context<AppEnv>, commands: KvCommand[]) {
  const project = c.get("project")!;
  kvQuotaBytes(project);
  await enforceRateLimit(c, kvOperationsRule(project), commands.length);
  return runKvCommands(c.env, project, commands);
}

const route = <Req extends object>(method: "get" | "post", op: string, summary: string, request: Req, reply: z.ZodType, statuses: number[]) =>
  createRoute({ method, path: `/{slug}/redis/${op}`, tags: ["Key-value"], summary, security: ApiKeySecurity, middleware: [projectScope] as const, request: { params: SlugParam, ...request }, responses: { 200: json(reply, "Done"), ...errors(...statuses) } });

export const kvRoutes = createRouter();

for (const [op, [schema, reply, summary]] of Object.entries(OPERATIONS)) {
  kvRoutes.openapi(route("post", op, summary, { body: jsonBody(schema) }, reply, [400, 401, 402, 404, 413, 429]), (async (c: Context<AppEnv>) => {
    const input = (c.req as unknown as { valid(t: "json"): object }).valid("json");
    const [result] = await run(c, [{ ...input, op } as KvCommand]);
    return c.json(result, 200);
  }) as never);
}

kvRoutes
  .openapi(route("post", "flush", "Delete every key of the project", {}, Deleted, [401, 402, 404, 429]), async (c) => {
    const [result] = await run(c, [{ op: "flush" }]);
    return c.json(result as { deleted: number }, 200);
  })
  .openapi(route("get", "usage", "Keys and memory against the plan's quota", {}, KvUsage, [401, 402, 404, 429]), async (c) => {
    const project = c.get("project")!;
    kvQuotaBytes(project);
    await enforceRateLimit(c, kvOperationsRule(project));
    return c.json(await kvUsage(c.env, project), 200);
  })
  .openapi(route("post", "publish", "Send a message to a channel's subscribers", { body: jsonBody(body.PublishBody) }, z.object({ receivers: z.number().int() }), [400, 401, 402, 404, 413, 429]), async (c) => {
    const project = c.get("project")!;
    const { channel, message } = c.req.valid("json");
    kvQuotaBytes(project);
    await enforceRateLimit(c, kvOperationsRule(project));
    return c.json({ receivers: await publishMessage(c.env, project, channel, message) }, 200);
  })
  .openapi(route("post", "pipeline", `Run up to ${KV_LIMITS.maxPipelineCommands} commands atomically`, { body: jsonBody(body.PipelineBody) }, z.object({ results: z.array(z.unknown()) }), [400, 401, 402, 404, 413, 429]), async (c) => {
    return c.json({ results: await run(c, c.req.valid("json").commands) }, 200);
  })
  .openapi(
    route("get", "subscribe", "Subscribe to channels over a WebSocket", { query: z.object({ channel: z.union([z.string(), z.array(z.string())]).openapi({ description: `repeat for several channels (at most ${KV_LIMITS.maxSubscribeChannels})` }) }) }, z.object({}), [400, 401, 402, 404, 426, 429]),
    async (c) => {
      const project = c.get("project")!;
      const requested = c.req.valid("query").channel;
      const channels = [...new Set(Array.isArray(requested) ? requested : [requested])];
      const bad = channels.find((ch) => ch.length < 1 || ch.length > KV_LIMITS.maxChannelLength);
      if (bad !== undefined) throw new ApiError(400, `channel names must be 1 to ${KV_LIMITS.maxChannelLength} characters.`, { code: "invalid_request" });
      if (channels.length > KV_LIMITS.maxSubscribeChannels) throw new ApiError(400, `A subscription may listen to at most ${KV_LIMITS.maxSubscribeChannels} channels; open another WebSocket for more.`, { code: "invalid_request" });
      kvQuotaBytes(project);
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
        throw new ApiError(426, "Connect with a WebSocket client (Upgrade: websocket) to subscribe.", { code: "upgrade_required", headers: { Upgrade: "websocket" } });
      }
      await enforceRateLimit(c, kvOperationsRule(project));
      return (await subscribeChannels(c.env, project, c.req.raw, channels)) as never;
    },
  );
