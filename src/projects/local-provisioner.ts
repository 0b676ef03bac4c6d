import type { EnvVars } from "../env.ts";
import { withSession } from "../platform/db.ts";
import { randomToken } from "../platform/crypto.ts";
import { databaseNames, type DatabaseProvisioner, type ProvisionedDatabase } from "./provisioner.ts";
import { createExtensions } from "./extensions.ts";

/**
 * Provisions on the local PostgreSQL server as its superuser: a login role that is not a
 * superuser and cannot create roles or databases, and a database it owns that no one
 * else may connect to.
 */
export class LocalProvisioner implements DatabaseProvisioner {
  private readonly config: EnvVars;
  private readonly server: URL;

  constructor(config: EnvVars) {
    if (!config.PROVISIONER_DATABASE_URL) throw new Error("PROVISIONER_DATABASE_URL is required when PROVISIONER=local");
    this.config = config;
    this.server = new URL(config.PROVISIONER_DATABASE_URL);
  }

  async provision(slug: string): Promise<ProvisionedDatabase> {
    const { database, role } = databaseNames(slug);
    // base64url has no quote characters, so it is safe inside a SQL literal.
    const password = randomToken(24);
    const made: string[] = [];
    try {
      await withSession(this.config, this.server.href, async (admin) => {
        await admin.query(
          `create role "${role}" login password '${password}' nosuperuser nocreatedb nocreaterole noreplication nobypassrls connection limit 50`,
        );
        made.push(`drop role if exists "${role}"`);
        await admin.query(`create database "${database}" owner "${role}"`);
        made.unshift(`drop database if exists "${database}" with (force)`);
        await admin.query(`revoke all on database "${database}" from public`);
      });
      const extensions = await withSession(this.config, this.databaseUrl(database), (admin) => createExtensions(admin));
      return { name: database, host: this.server.hostname, port: Number(this.server.port || 5432), user: role, password, extensions, providerRef: null };
    } catch (err) {
      // Undo only what this call made: a same-named database that existed before is not ours.
      if (made.length) await withSession(this.config, this.server.href, async (admin) => {
        for (const statement of made) await admin.query(statement);
      }).catch(() => {});
      throw err;
    }
  }

  async deprovision(db: ProvisionedDatabase): Promise<void> {
    const { name: database, user: role } = db;
    await withSession(this.config, this.server.href, async (admin) => {
      await admin.query(`drop database if exists "${database}" with (force)`);
      await admin.query(`drop role if exists "${role}"`);
    });
  }

  private databaseUrl(database: string): string {
    const url = new URL(this.server.href);
    url.pathname = `/${database}`;
    return url.href;
  }
}

