import { z } from "@hono/zod-openapi";
import { KV_LIMITS } from "./limits.ts";

/** Request bodies of the key-value operations; the pipeline reuses them with an `op`. */

const MAX_TTL = KV_LIMITS.maxTtlSeconds;

export const Key = z
  .string()
  .min(1, "a key must not be empty")
  .max(KV_LIMITS.maxKeyLength, `a key may be at most ${KV_LIMITS.maxKeyLength} characters`)
  .refine((k) => !k.startsWith(KV_LIMITS.reservedPrefix), `keys starting with "${KV_LIMITS.reservedPrefix}" are reserved for the platform; choose another name`);

const Ttl = z
  .number()
  .int("ttl must be a whole number of seconds")
  .min(1, "ttl must be at least 1 second")
  .max(MAX_TTL, `ttl must be at most ${MAX_TTL} seconds (7 days)`)
  .openapi({ description: `seconds until the key expires; default ${KV_LIMITS.defaultTtlSeconds} (1 hour), at most ${MAX_TTL} (7 days)` });

const Value = z
  .unknown()
  .refine((v) => v !== undefined && v !== null, "value is required and may be any JSON value except null (to remove a key, delete it)")
  .openapi({ description: `any JSON value except null; at most ${KV_LIMITS.maxValueBytes} bytes as JSON` });

const Amount = z.number().int("amount must be an integer").refine(Number.isSafeInteger, "amount is too large").optional().openapi({ description: "default 1" });

export const SetBody = z.object({ key: Key, value: Value, ttl: Ttl.optional() });
export const KeyBody = z.object({ key: Key });
export const DeleteBody = z.object({ keys: z.array(Key).min(1, "keys must name at least one key").max(KV_LIMITS.maxDeleteKeys, `at most ${KV_LIMITS.maxDeleteKeys} keys per delete`) });
export const MgetBody = z.object({ keys: z.array(Key).min(1, "keys must name at least one key").max(KV_LIMITS.maxKeysPerCall, `at most ${KV_LIMITS.maxKeysPerCall} keys per mget`) });
export const MsetBody = z.object({
  items: z
    .record(z.string(), Value)
    .superRefine((items, ctx) => {
      const keys = Object.keys(items);
      if (keys.length < 1) ctx.addIssue({ code: "custom", message: "items must hold at least one key" });
      if (keys.length > KV_LIMITS.maxKeysPerCall) ctx.addIssue({ code: "custom", message: `at most ${KV_LIMITS.maxKeysPerCall} keys per mset` });
      for (const key of keys) {
        const checked = Key.safeParse(key);
        if (!checked.success) ctx.addIssue({ code: "custom", path: [key], message: checked.error.issues[0]!.message });
      }
    })
    .openapi({ description: `key → JSON value, at most ${KV_LIMITS.maxKeysPerCall} keys` }),
  ttl: Ttl.optional(),
});
export const ExpireBody = z.object({
  key: Key,
  ttl: z.number().int("ttl must be a whole number of seconds").max(MAX_TTL, `ttl must be at most ${MAX_TTL} seconds (7 days)`).openapi({ description: "seconds; 0 or less deletes the key, as EXPIRE does" }),
});
export const CounterBody = z.object({ key: Key, amount: Amount, ttl: Ttl.optional().openapi({ description: "sets the expiry; without it a new key gets the default and an existing key keeps its own" }) });
export const PushBody = z.object({
  key: Key,
  values: z.array(Value).min(1, "values must hold at least one value").max(KV_LIMITS.maxPushValues, `at most ${KV_LIMITS.maxPushValues} values per push`),
  ttl: Ttl.optional(),
});
export const RangeBody = z.object({
  key: Key,
  start: z.number().int().optional().openapi({ description: "default 0; negative counts from the end" }),
  stop: z.number().int().optional().openapi({ description: "default -1 (the last element); inclusive" }),
});
export const KeysBody = z.object({
  pattern: z.string().max(KV_LIMITS.maxKeyLength).optional().openapi({ description: "Redis glob: * ? [abc] [^a] [a-z] \\x; default *" }),
  count: z.number().int().min(1).max(KV_LIMITS.maxScanCount).optional().openapi({ description: `most keys per page; default ${KV_LIMITS.defaultScanCount}` }),
  cursor: z.string().max(4096).nullable().optional().openapi({ description: "the cursor of the previous page; omit to start" }),
});
export const PublishBody = z.object({
  channel: z.string().min(1, "channel is required").max(KV_LIMITS.maxChannelLength, `a channel name may be at most ${KV_LIMITS.maxChannelLength} characters`),
  message: Value,
});

/** The operations a pipeline may hold, each the same body as its endpoint plus `op`. */
export const PipelineCommand = z.discriminatedUnion("op", [
  SetBody.extend({ op: z.literal("set") }),
  KeyBody.extend({ op: z.literal("get") }),
  DeleteBody.extend({ op: z.literal("delete") }),
  MgetBody.extend({ op: z.literal("mget") }),
  MsetBody.extend({ op: z.literal("mset") }),
  ExpireBody.extend({ op: z.literal("expire") }),
  KeyBody.extend({ op: z.literal("ttl") }),
  CounterBody.extend({ op: z.enum(["incr", "decr"]) }),
  PushBody.extend({ op: z.enum(["lpush", "rpush"]) }),
  KeyBody.extend({ op: z.enum(["lpop", "rpop"]) }),
  RangeBody.extend({ op: z.literal("lrange") }),
]);
export type PipelineCommand = z.infer<typeof PipelineCommand>;
export const PipelineBody = z.object({
  commands: z.array(PipelineCommand).min(1, "commands must hold at least one command").max(KV_LIMITS.maxPipelineCommands, `at most ${KV_LIMITS.maxPipelineCommands} commands per pipeline`),
});

/** Any operation as the API receives it (values still as JSON values). */
export type KvCommand =
  | PipelineCommand
  | (z.infer<typeof KeysBody> & { op: "keys" })
  | { op: "flush" };
