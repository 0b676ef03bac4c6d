import { z } from "zod";

/**
 * A message on the deploy Queue: which job of which project, nothing more. The consumer
 * reads the deployment, project and settings when it hands the job over, so a retry
 * always carries current credentials and no secret sits in the queue.
 */
export const DeployQueueMessage = z.object({
  job_id: z.string(),
  project_id: z.string().uuid(),
  slug: z.string(),
  action: z.enum(["deploy", "stop", "start", "restart", "destroy"]),
  deployment_id: z.string(),
});
export type DeployQueueMessage = z.infer<typeof DeployQueueMessage>;

/** Seconds before the next hand-over attempt: 2, 4, 8 … capped at a minute. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(60, 2 ** Math.max(1, attempts));
}
