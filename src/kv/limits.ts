/** The key-value store's constants (the interface's "Other constants", plus our own). */
export const KV_LIMITS = {
  /** A write without `ttl` expires after this long. */
  defaultTtlSeconds: 3600,
  /** 7 days: every key expires at most this long after its last ttl was set. */
  maxTtlSeconds: 7 * 24 * 3600,
  /** The JSON encoding of one value (or one list element), in UTF-8 bytes; beyond → 413. */
  maxValueBytes: 512 * 1024,
  /** Keys per mget / mset call. */
  maxKeysPerCall: 50,
  /** Keys per delete call (the interface is silent; generous but bounded). */
  maxDeleteKeys: 1000,
  /** Characters in a key or a channel name. */
  maxKeyLength: 1024,
  maxChannelLength: 200,
  /** Values per lpush / rpush call. */
  maxPushValues: 1000,
  /** `keys`: keys per page (default and maximum) and rows examined per call. */
  defaultScanCount: 100,
  maxScanCount: 1000,
  maxScanExamined: 10_000,
  /** Commands in one pipeline. */
  maxPipelineCommands: 100,
  /** Channels one subscription may listen to (a Durable Object WebSocket has 10 tags). */
  maxSubscribeChannels: 10,
  /** Keys starting with this are reserved. */
  reservedPrefix: "__",
} as const;
