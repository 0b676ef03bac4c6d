import { z } from "zod";

export const Plan = z.enum(["free", "starter", "pro", "enterprise"]);
export type Plan = z.infer<typeof Plan>;

const MB = 1024 ** 2;
const GB = 1024 ** 3;

export type PlanLimits = {
  databaseBytes: number;
  storageBytes: number;
  /** null: the key-value store is not offered on this plan. */
  kvBytes: number | null;
  sqlQueriesPerHour: number;
  kvOpsPerHour: number | null;
  magicLinksPerDay: number;
  containerRamBytes: number;
  containerCpu: number;
  /** null: unlimited. */
  projects: number | null;
};

/** Every plan limit of the platform, in one table (mirrored in the README). */
export const PLANS: Record<Plan, PlanLimits> = {
  free: { databaseBytes: 2 * GB, storageBytes: 5 * GB, kvBytes: null, sqlQueriesPerHour: 1_000, kvOpsPerHour: null, magicLinksPerDay: 10, containerRamBytes: 512 * MB, containerCpu: 0.5, projects: 3 },
  starter: { databaseBytes: 10 * GB, storageBytes: 20 * GB, kvBytes: null, sqlQueriesPerHour: 10_000, kvOpsPerHour: null, magicLinksPerDay: 100, containerRamBytes: 1 * GB, containerCpu: 1, projects: 10 },
  pro: { databaseBytes: 50 * GB, storageBytes: 100 * GB, kvBytes: 100 * MB, sqlQueriesPerHour: 100_000, kvOpsPerHour: 10_000, magicLinksPerDay: 1_000, containerRamBytes: 2 * GB, containerCpu: 2, projects: 100 },
  enterprise: { databaseBytes: 500 * GB, storageBytes: 1024 * GB, kvBytes: 500 * MB, sqlQueriesPerHour: 1_000_000, kvOpsPerHour: 100_000, magicLinksPerDay: 10_000, containerRamBytes: 8 * GB, containerCpu: 4, projects: null },
};
