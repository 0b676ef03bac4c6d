import { z } from "zod";
import type { EnvVars } from "../env.ts";
import { ApiError } from "../errors.ts";
import { withSession } from "../platform/db.ts";
import { createExtensions } from "./extensions.ts";
import { databaseNames, type DatabaseProvisioner, type ProvisionedDatabase } from "./provisioner.ts";

/** What the Neon API answers to POST /projects (only the parts used here). */
const CreatedNeonProject = z.object({
  project: z.object({ id: z.string().min(1) }),
  connection_uris: z
    .array(z.object({ connection_uri: z.string().url(), connection_parameters: z.object({ database: z.string(), role: z.string(), password: z.string(), host: z.string() }) }))
    .min(1),
});

/**
 * Production provisioning: one Neon project per Slipway project, so each database has its
 * own compute, storage and roles and no role can reach another project. The database and
 * its owner role are named like the local ones; the extensions are created as that owner.
 */
export class NeonProvisioner implements DatabaseProvisioner {
  private readonly config: EnvVars;

  constructor(config: EnvVars) {
    if (!config.NEON_API_KEY) throw new ApiError(503, "Project databases cannot be created: NEON_API_KEY is not configured.", { code: "provisioner_unavailable" });
    this.config = config;
  }

  async provision(slug: string): Promise<ProvisionedDatabase> {
    const { database, role } = databaseNames(slug);
    const body = {
      project: {
        name: `slipway-${slug}`,
        pg_version: 17,
        region_id: this.config.NEON_REGION,
        ...(this.config.NEON_ORG_ID ? { org_id: this.config.NEON_ORG_ID } : {}),
        branch: { database_name: database, role_name: role },
      },
    };
    const created = CreatedNeonProject.parse(await this.call("POST", "/projects", body));
    const ref = created.project.id;
    try {
      const uri = created.connection_uris[0]!;
      const url = new URL(uri.connection_uri);
      const extensions = await withSession(this.config, uri.connection_uri, (owner) => createExtensions(owner));
      const params = uri.connection_parameters;
      return { name: params.database, host: params.host, port: Number(url.port || 5432), user: params.role, password: params.password, extensions, providerRef: ref };
    } catch (err) {
      await this.call("DELETE", `/projects/${encodeURIComponent(ref)}`).catch(() => {});
      throw err;
    }
  }

  async deprovision(db: ProvisionedDatabase): Promise<void> {
    if (db.providerRef) await this.call("DELETE", `/projects/${encodeURIComponent(db.providerRef)}`);
  }

  /** One Neon API call; any failure is a 503 that names Neon. */
  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.config.NEON_API_URL.replace(/\/$/, "")}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.config.NEON_API_KEY}`, Accept: "application/json", ...(body ? { "Content-Type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (cause) {
      throw new ApiError(503, "The Neon API could not be reached; nothing was created. Retry in a few seconds.", { code: "provisioner_unavailable", cause });
    }
    const text = await res.text();
    if (!res.ok) {
      throw new ApiError(503, `The Neon API refused to ${method === "DELETE" ? "remove" : "create"} the database (HTTP ${res.status}); nothing was created. Retry, or contact support.`, {
        code: "provisioner_unavailable",
        cause: text.slice(0, 500),
      });
    }
    return text ? JSON.parse(text) : null;
  }
}
