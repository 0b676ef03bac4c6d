import { z } from "zod";

/** The runner's configuration, from its environment (see container-runner/README.md). */
export const RunnerConfig = z.object({
  RUNNER_HOST: z.string().default("127.0.0.1"),
  RUNNER_PORT: z.coerce.number().int().min(0).max(65535).default(8790),
  /** Shared with the Worker; signs jobs one way and status reports the other. */
  RUNNER_SECRET: z.string().min(32, "RUNNER_SECRET must be at least 32 characters"),
  RUNNER_DATA_DIR: z.string().default(".data/runner"),
  RUNNER_BACKEND: z.enum(["process", "docker"]).default("process"),
  /** Host names `<slug>.<RUNNER_APPS_DOMAIN>` are proxied to the project's running app. */
  RUNNER_APPS_DOMAIN: z.string().default("localhost"),
  /** The public address of an app, reported to the Worker; `{slug}` and `{port}` are filled in. */
  RUNNER_APP_URL_TEMPLATE: z.string().includes("{slug}").default("http://{slug}.localhost:{port}"),
  RUNNER_READY_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  /** While a deploy runs, a `building` report repeats this often so the Worker knows the runner lives. */
  RUNNER_HEARTBEAT_SECONDS: z.coerce.number().positive().default(15),
  RUNNER_BUILD_TIMEOUT_SECONDS: z.coerce.number().positive().default(600),
  RUNNER_CLONE_TIMEOUT_SECONDS: z.coerce.number().positive().default(120),
  RUNNER_CLONE_MAX_MB: z.coerce.number().positive().default(200),
  /** host[:port] list that may be cloned although private or loopback: the platform's own git host. */
  RUNNER_PLATFORM_GIT_HOSTS: z.string().default(""),
  /** bwrap isolation: "auto" uses it when installed, "off" never (said at start-up). */
  RUNNER_SANDBOX: z.enum(["auto", "off"]).default("auto"),
  /** cgroups v1 memory/cpu limits: "auto" uses them when writable, "off" never. */
  RUNNER_CGROUPS: z.enum(["auto", "off"]).default("auto"),
  RUNNER_CGROUP_ROOT: z.string().default("/sys/fs/cgroup"),
  RUNNER_DOCKER_SOCKET: z.string().default("/var/run/docker.sock"),
});
export type RunnerConfig = z.infer<typeof RunnerConfig>;

export function loadRunnerConfig(env: Record<string, string | undefined>): RunnerConfig {
  const parsed = RunnerConfig.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`container-runner is misconfigured: ${names}`);
  }
  return parsed.data;
}

/** The public address of a project's app. */
export function appUrl(config: RunnerConfig, slug: string, port: number): string {
  return config.RUNNER_APP_URL_TEMPLATE.replaceAll("{slug}", slug).replaceAll("{port}", String(port));
}
