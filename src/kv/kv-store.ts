import type { Bindings } from "../env.ts";
import { ApiError, planLimit } from "../errors.ts";
import { PLANS } from "../config/plans.ts";
import type { Project } from "../projects/projects.ts";
import type { StoreCommand } from "../../durable-objects/kv-store.ts";
import type { StoreReply, StoreResult } from "../../durable-objects/kv/types.ts";
import type { KvCommand } from "./commands.ts";
import { KV_LIMITS } from "./limits.ts";
import { humanBytes } from "./human-bytes.ts";
import { utf8Bytes } from "./utf8-bytes.ts";

/** The project's memory quota; 402 on plans without a key-value store. */
export function kvQuotaBytes(project: Pick<Project, "plan">): number {
  const quota = PLANS[project.plan].kvBytes;
  if (quota === null) {
    throw planLimit(`The key-value store is available on the Pro and Enterprise plans; this project's account is on the ${project.plan} plan. Upgrade the plan to use it.`);
  }
  return quota;
}

/** The project's own KvStore object: one per project, named by its id. */
export function kvStoreOf(env: Bindings, project: Pick<Project, "id">) {
  return env.KV_STORE.get(env.KV_STORE.idFromName(project.id));
}

/**
 * Runs commands atomically in the project's store and returns their replies; a refused
 * command becomes its 400/402 (prefixed with its position when there are several).
 */
export async function runKvCommands(env: Bindings, project: Project, commands: KvCommand[]): Promise<StoreReply[]> {
  const quota = kvQuotaBytes(project);
  const encoded = commands.map(encodeCommand);
  const result = (await kvStoreOf(env, project).execute(encoded, quota)) as StoreResult;
  if ("failure" in result) {
    const { status, code, detail, index } = result.failure;
    throw new ApiError(status, commands.length > 1 ? `Command ${index} (${commands[index]!.op}): ${detail} Nothing was changed.` : detail, { code });
  }
  return result.replies;
}

/** Live keys and memory against the plan's quota. */
export async function kvUsage(env: Bindings, project: Project) {
  const quota = kvQuotaBytes(project);
  const { key_count, memory_bytes } = await kvStoreOf(env, project).usage();
  return { key_count, memory_bytes, memory_human: humanBytes(memory_bytes), quota_bytes: quota, quota_human: humanBytes(quota) };
}

/** Sends a message to the channel's current subscribers; returns how many received it. */
export async function publishMessage(env: Bindings, project: Project, channel: string, message: unknown): Promise<number> {
  kvQuotaBytes(project);
  encodeValue(message, "message");
  return kvStoreOf(env, project).publish(channel, message);
}

/** Hands a WebSocket upgrade to the project's store, subscribed to `channels`. */
export function subscribeChannels(env: Bindings, project: Project, request: Request, channels: string[]): Promise<Response> {
  kvQuotaBytes(project);
  const url = new URL("https://kv-store/subscribe");
  for (const channel of channels) url.searchParams.append("channel", channel);
  return kvStoreOf(env, project).fetch(new Request(url, { headers: request.headers }));
}

/** JSON text of a value, refused with 413 beyond the value size limit. */
function encodeValue(value: unknown, what: string): string {
  const json = JSON.stringify(value);
  const bytes = utf8Bytes(json);
  if (bytes > KV_LIMITS.maxValueBytes) {
    throw new ApiError(413, `The ${what} is ${bytes} bytes as JSON; the most a key-value value may be is ${KV_LIMITS.maxValueBytes} bytes (512 KB). Keep large data in object storage and store its path here.`, { code: "value_too_large" });
  }
  return json;
}

function encodeCommand(cmd: KvCommand): StoreCommand {
  switch (cmd.op) {
    case "set":
      return { ...cmd, value: encodeValue(cmd.value, `value of "${cmd.key}"`) };
    case "mset":
      return { op: "mset", ttl: cmd.ttl, items: Object.entries(cmd.items).map(([key, value]) => [key, encodeValue(value, `value of "${key}"`)]) };
    case "lpush":
    case "rpush":
      return { ...cmd, values: cmd.values.map((value, i) => encodeValue(value, `values[${i}]`)) };
    default:
      return cmd;
  }
}
