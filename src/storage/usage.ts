import type { Bindings, EnvVars } from "../env.ts";
import { PLANS } from "../config/plans.ts";
import { controlPlane } from "../platform/db.ts";
import { notFound, planLimit } from "../errors.ts";
import type { Project } from "../projects/projects.ts";
import { AREAS, areaPrefix } from "./object-keys.ts";

/**
 * Storage usage of a project: the sum of the sizes of its R2 objects (object storage and
 * site together; git packs are not counted), counted by listing their prefixes. The total is kept in project_storage
 * and trusted for STORAGE_USAGE_TTL_SECONDS; a write or delete the Worker performs marks
 * it stale so the next check lists again. Uploads that go straight to R2 in production
 * are counted at the next measurement, at most the TTL later.
 */

export type StorageUsage = { size_bytes: number; object_count: number; limit_bytes: number; usage_percent: number; plan: string };

type Row = { used_bytes: string; object_count: number; measured_at: string | null; limit_bytes: string | null };

async function readRow(config: EnvVars, projectId: string): Promise<Row | null> {
  const rows = (await controlPlane(config).query(`select used_bytes, object_count, measured_at, limit_bytes from project_storage where project_id = $1`, [projectId])) as Row[];
  return rows[0] ?? null;
}

/** Lists every object of the project's storage areas and adds up their sizes. */
export async function measureStorage(bucket: R2Bucket, projectId: string): Promise<{ bytes: number; count: number }> {
  let bytes = 0;
  let count = 0;
  for (const area of AREAS) {
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix: areaPrefix(projectId, area), cursor, limit: 1000 });
      for (const o of page.objects) {
        bytes += o.size;
        count++;
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
  }
  return { bytes, count };
}

export async function storageUsage(env: Bindings, config: EnvVars, project: Project, fresh = false): Promise<StorageUsage> {
  const row = await readRow(config, project.id);
  let used = Number(row?.used_bytes ?? 0);
  let count = row?.object_count ?? 0;
  const measuredAt = row?.measured_at ? new Date(row.measured_at).getTime() : 0;
  if (fresh || !row || Date.now() - measuredAt > config.STORAGE_USAGE_TTL_SECONDS * 1000) {
    const measured = await measureStorage(env.BUCKET, project.id);
    used = measured.bytes;
    count = measured.count;
    await controlPlane(config).query(
      `insert into project_storage (project_id, used_bytes, object_count, measured_at) values ($1, $2, $3, now())
       on conflict (project_id) do update set used_bytes = $2, object_count = $3, measured_at = now()`,
      [project.id, used, count],
    );
  }
  const limit = row?.limit_bytes != null ? Number(row.limit_bytes) : PLANS[project.plan].storageBytes;
  return { size_bytes: used, object_count: count, limit_bytes: limit, usage_percent: Math.round((used / limit) * 10_000) / 100, plan: project.plan };
}

/**
 * Refuses (402) an upload of `bytes` that would take the project past its storage limit.
 * With an unknown size (0) it refuses only when the project is already at its limit.
 */
export async function ensureStorageRoom(env: Bindings, config: EnvVars, project: Project, bytes: number): Promise<void> {
  const usage = await storageUsage(env, config, project);
  const over = bytes > 0 ? usage.size_bytes + bytes > usage.limit_bytes : usage.size_bytes >= usage.limit_bytes;
  if (over) {
    throw planLimit(
      `This upload would exceed the project's storage limit: ${usage.size_bytes} of ${usage.limit_bytes} bytes used` +
        (bytes > 0 ? `, ${bytes} more requested` : "") +
        `. Delete files or upgrade the plan.`,
    );
  }
}

/** Marks the stored total stale after a write or delete, so the next check lists R2 again. */
export async function markStorageChanged(config: EnvVars, projectId: string): Promise<void> {
  await controlPlane(config).query(`update project_storage set measured_at = null where project_id = $1`, [projectId]);
}

/** Sets (or clears, with null) a project's own storage limit. */
export async function setStorageLimit(config: EnvVars, slug: string, limitBytes: number | null): Promise<void> {
  const rows = await controlPlane(config).query(
    `insert into project_storage (project_id, limit_bytes) select id, $2 from projects where slug = $1
     on conflict (project_id) do update set limit_bytes = $2 returning project_id`,
    [slug, limitBytes],
  );
  if (!rows.length) throw notFound(`No project with slug ${slug}.`);
}
