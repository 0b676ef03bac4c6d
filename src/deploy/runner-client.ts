import type { EnvVars } from "../env.ts";
import { signRequest } from "../../container-runner/src/signing.ts";
import type { RunnerJob } from "../../container-runner/src/protocol.ts";

export type HandOver = { accepted: true } | { accepted: false; retry: boolean; detail: string };

/**
 * Hands one job to the container-runner (signed POST /v1/jobs). 202 is acceptance; a 400
 * will not get better with retries; anything else (down, 5xx, 401 from a secret
 * mismatch while a deploy rolls out) is retried by the queue.
 */
export async function handOverJob(config: EnvVars, job: RunnerJob): Promise<HandOver> {
  const body = JSON.stringify(job);
  const headers = await signRequest(config.RUNNER_SECRET, "POST", "/v1/jobs", body);
  let res: Response;
  try {
    res = await fetch(`${runnerBase(config)}/v1/jobs`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    return { accepted: false, retry: true, detail: `the container-runner is unreachable (${(err as Error).message})` };
  }
  const text = await res.text();
  if (res.status === 202) return { accepted: true };
  let detail = text.slice(0, 500);
  try {
    detail = JSON.parse(text).detail ?? detail;
  } catch {}
  return { accepted: false, retry: res.status !== 400 && res.status !== 413, detail: `the container-runner answered ${res.status}: ${detail}` };
}

/** The runner's logs of one deployment (signed GET); `follow` keeps the stream open. */
export async function fetchRunnerLogs(config: EnvVars, deploymentId: string, follow: boolean): Promise<Response | null> {
  const path = `/v1/deployments/${deploymentId}/logs${follow ? "?follow=1" : ""}`;
  try {
    const res = await fetch(`${runnerBase(config)}${path}`, { headers: await signRequest(config.RUNNER_SECRET, "GET", path, "") });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res;
  } catch {
    return null;
  }
}

function runnerBase(config: EnvVars): string {
  return config.RUNNER_URL.replace(/\/$/, "");
}
