/** A project's own database and the role that owns it. */
export type ProvisionedDatabase = {
  name: string;
  host: string;
  port: number;
  user: string;
  password: string;
  /** Extensions created in the database (of uuid-ossp, pgcrypto, pg_stat_statements, vector). */
  extensions: string[];
  /** The provider's own id for what was made (the Neon project id); null locally. */
  providerRef: string | null;
};

/** The extensions the interface promises, in the order they are created. */
export const WANTED_EXTENSIONS = ["uuid-ossp", "pgcrypto", "pg_stat_statements", "vector"] as const;

/**
 * Makes and removes per-project databases. Local: CREATE ROLE/DATABASE on the local
 * server. Production: one Neon project per Slipway project, through the Neon API.
 */
export interface DatabaseProvisioner {
  /** Makes the database and its role; on failure, undoes whatever it had made. */
  provision(slug: string): Promise<ProvisionedDatabase>;
  /** Removes a database and role that `provision` made. */
  deprovision(db: ProvisionedDatabase): Promise<void>;
}

/** Database and role names for a slug: "my-app" → database "my_app", role "my_app_owner". */
export function databaseNames(slug: string): { database: string; role: string } {
  const database = slug.replace(/-/g, "_");
  return { database, role: `${database}_owner` };
}

export function connectionString(db: Pick<ProvisionedDatabase, "name" | "host" | "port" | "user" | "password">, sslmode?: string): string {
  const url = `postgresql://${encodeURIComponent(db.user)}:${encodeURIComponent(db.password)}@${db.host}:${db.port}/${encodeURIComponent(db.name)}`;
  return sslmode ? `${url}?sslmode=${sslmode}` : url;
}
