import type { Bindings } from "../env.ts";

/** The project's DeployCoordinator Durable Object (one per project id). */
export function coordinatorFor(env: Bindings, projectId: string) {
  return env.DEPLOY_COORDINATOR.get(env.DEPLOY_COORDINATOR.idFromName(projectId));
}
