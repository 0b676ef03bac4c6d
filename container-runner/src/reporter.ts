import { signRequest } from "./signing.ts";
import type { StatusReport } from "./protocol.ts";

const RETRY_DELAYS_MS = [200, 500, 1_000, 2_000, 5_000, 10_000, 30_000];

/**
 * Sends signed status reports to the Worker's callback URL, in order per deployment,
 * retrying with back-off while the Worker is unreachable (a report is never dropped
 * silently: after the last retry it is logged).
 */
export class StatusReporter {
  private seq = 0;
  private chains = new Map<string, Promise<void>>();

  private readonly secret: string;
  private readonly log: (line: string) => void;

  constructor(secret: string, log: (line: string) => void) {
    this.secret = secret;
    this.log = log;
  }

  report(callbackUrl: string, report: Omit<StatusReport, "at" | "seq">): Promise<void> {
    // Microseconds of the runner's clock, strictly increasing: a restarted runner still orders after itself.
    this.seq = Math.max(this.seq + 1, Date.now() * 1000);
    const full: StatusReport = { ...report, at: new Date().toISOString(), seq: this.seq };
    const key = report.deployment_id;
    const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(callbackUrl, full));
    this.chains.set(key, next);
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
    return next;
  }

  /** Waits until every queued report has been delivered or given up. */
  async drain(): Promise<void> {
    await Promise.all(this.chains.values());
  }

  private async deliver(callbackUrl: string, report: StatusReport): Promise<void> {
    const body = JSON.stringify(report);
    const url = new URL(callbackUrl);
    for (let attempt = 0; ; attempt++) {
      try {
        const headers = await signRequest(this.secret, "POST", url.pathname + url.search, body);
        const res = await fetch(url, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
        await res.body?.cancel();
        if (res.ok || (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)) {
          if (!res.ok) this.log(`status report ${report.status} for ${report.deployment_id} refused by the Worker: ${res.status}`);
          return;
        }
        throw new Error(`HTTP ${res.status}`);
      } catch (err) {
        if (attempt >= RETRY_DELAYS_MS.length) {
          this.log(`gave up reporting ${report.status} for ${report.deployment_id}: ${(err as Error).message}`);
          return;
        }
        await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt]));
      }
    }
  }
}
