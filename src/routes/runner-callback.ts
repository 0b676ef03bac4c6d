import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { verifyRequest } from "../../container-runner/src/signing.ts";
import { StatusReport } from "../../container-runner/src/protocol.ts";
import { findProjectBySlug } from "../projects/projects.ts";
import { coordinatorFor } from "../deploy/coordinator.ts";
import { unauthorized, badRequest, notFound } from "../errors.ts";

// {api_root}/internal/runner: POST /status — the container-runner's signed status reports.
// Not part of the public API (left out of the OpenAPI document). A replayed report is
// harmless: reports older than the last one applied (by `seq`) are ignored.

export const runnerCallbackRoutes = new Hono<AppEnv>().post("/status", async (c) => {
  const config = c.get("config");
  const body = await c.req.text();
  const url = new URL(c.req.url);
  const verdict = await verifyRequest(config.RUNNER_SECRET, c.req.raw.headers, "POST", url.pathname + url.search, body);
  if (!verdict.ok) throw unauthorized(`Status reports must be signed by the container-runner: ${verdict.reason}.`);
  let report: StatusReport;
  try {
    report = StatusReport.parse(JSON.parse(body));
  } catch {
    throw badRequest("The status report is not valid.");
  }
  const project = await findProjectBySlug(config, report.project);
  if (!project) throw notFound(`Project "${report.project}" does not exist.`);
  const applied = await coordinatorFor(c.env, project.id).report(report);
  return c.json({ applied }, 200);
});
