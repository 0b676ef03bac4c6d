// A closed-loop load generator and the figures the bench prints from it.

export type LoadResult = {
  requests: number;
  concurrency: number;
  elapsedMs: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
};

/**
 * Sends `requests` calls of `send` with `concurrency` in flight: each of the
 * `concurrency` callers sends its next request as soon as its last one is answered.
 * Any failed request fails the whole run, since its figures would mean nothing.
 */
export async function runClosedLoop(send: () => Promise<void>, opts: { requests: number; concurrency: number }): Promise<LoadResult> {
  const latencies = new Float64Array(opts.requests);
  let next = 0;
  const caller = async () => {
    while (next < opts.requests) {
      const i = next++;
      const sent = performance.now();
      await send();
      latencies[i] = performance.now() - sent;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: opts.concurrency }, caller));
  const elapsedMs = performance.now() - started;
  latencies.sort();
  return {
    requests: opts.requests,
    concurrency: opts.concurrency,
    elapsedMs,
    perSecond: (opts.requests / elapsedMs) * 1000,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}
