import type { EnvVars } from "../env.ts";
import { PLANS, type Plan } from "../config/plans.ts";
import { controlPlane, pgCode, UNIQUE_VIOLATION } from "../platform/db.ts";
import { seal, unseal } from "../platform/crypto.ts";
import { ApiError, badRequest, conflict, notFound, planLimit } from "../errors.ts";
import { slugFromName, slugProblem, withSuffix } from "./slug.ts";
import { connectionString, type DatabaseProvisioner, type ProvisionedDatabase } from "./provisioner.ts";
import { LocalProvisioner } from "./local-provisioner.ts";
import { NeonProvisioner } from "./neon-provisioner.ts";
import { gitRepoUrl, siteUrl } from "./addresses.ts";

/** A project row joined with its account's plan. */
export type Project = {
  id: string;
  account_id: string;
  name: string;
  slug: string;
  status: "active" | "suspended";
  plan: Plan;
  db_name: string;
  db_host: string;
  db_port: number;
  db_user: string;
  db_password_sealed: string;
  db_size_bytes: string | null;
  db_size_measured_at: string | null;
  db_limit_bytes: string | null;
  extensions: string[];
  db_provider_ref: string | null;
  created_at: string;
  updated_at: string;
};

const SELECT_PROJECT = `select p.*, a.plan from projects p join accounts a on a.id = p.account_id`;

export function provisionerFor(config: EnvVars): DatabaseProvisioner {
  return config.PROVISIONER === "local" ? new LocalProvisioner(config) : new NeonProvisioner(config);
}

/** The caller's project by slug; another account's project is indistinguishable from none. */
export async function findProjectForAccount(config: EnvVars, accountId: string, slug: string): Promise<Project> {
  const rows = (await controlPlane(config).query(`${SELECT_PROJECT} where p.slug = $1 and p.account_id = $2`, [slug, accountId])) as Project[];
  if (!rows[0]) throw notFound(`Project "${slug}" not found. List your projects with GET /v1/project/projects.`);
  return rows[0];
}

export async function findProjectBySlug(config: EnvVars, slug: string): Promise<Project | null> {
  const rows = (await controlPlane(config).query(`${SELECT_PROJECT} where p.slug = $1`, [slug])) as Project[];
  return rows[0] ?? null;
}

export async function listProjects(config: EnvVars, accountId: string): Promise<Project[]> {
  return (await controlPlane(config).query(`${SELECT_PROJECT} where p.account_id = $1 order by p.created_at, p.slug`, [accountId])) as Project[];
}

async function slugTaken(config: EnvVars, slug: string): Promise<boolean> {
  const rows = await controlPlane(config).query(`select 1 from projects where slug = $1`, [slug]);
  return rows.length > 0;
}

async function chooseSlug(config: EnvVars, name: string, requested: string | undefined): Promise<string> {
  if (requested !== undefined) {
    const problem = slugProblem(requested);
    if (problem) throw badRequest(problem, "invalid_slug");
    if (await slugTaken(config, requested)) throw conflict(`The slug "${requested}" is taken; choose another or omit slug to have one generated.`);
    return requested;
  }
  let slug = slugFromName(name);
  for (let attempt = 0; (await slugTaken(config, slug)) && attempt < 5; attempt++) slug = withSuffix(slugFromName(name));
  return slug;
}

/**
 * Creates a project and its dedicated database. Provisioning happens before the row is
 * written and is undone if anything after it fails, so no half-made project remains.
 */
export async function createProject(
  config: EnvVars,
  account: { id: string; plan: Plan },
  input: { name: string; slug?: string },
): Promise<{ project: Project; database: ProvisionedDatabase }> {
  const limit = PLANS[account.plan].projects;
  if (limit !== null) {
    const [{ count }] = (await controlPlane(config).query(`select count(*)::int as count from projects where account_id = $1`, [account.id])) as [{ count: number }];
    if (count >= limit) throw planLimit(`The ${account.plan} plan allows ${limit} projects; delete one or upgrade your plan.`);
  }
  const slug = await chooseSlug(config, input.name, input.slug);
  const provisioner = provisionerFor(config);
  let database: ProvisionedDatabase;
  try {
    database = await provisioner.provision(slug);
  } catch (cause) {
    if (cause instanceof ApiError) throw cause;
    if (pgCode(cause) === "42P04" || pgCode(cause) === "42710") throw conflict(`The slug "${slug}" is taken; choose another.`);
    throw new ApiError(503, "Could not create the project's database; nothing was created. Retry in a few seconds.", { code: "provisioning_failed", cause });
  }
  try {
    const rows = (await controlPlane(config).query(
      `with p as (
         insert into projects (account_id, name, slug, db_name, db_host, db_port, db_user, db_password_sealed, extensions, db_provider_ref)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *)
       select p.*, a.plan from p join accounts a on a.id = p.account_id`,
      [account.id, input.name, slug, database.name, database.host, database.port, database.user, await seal(database.password, config.ENCRYPTION_KEY), database.extensions, database.providerRef],
    )) as Project[];
    return { project: rows[0]!, database };
  } catch (err) {
    await provisioner.deprovision(database).catch(() => {});
    if (pgCode(err) === UNIQUE_VIOLATION) throw conflict(`The slug "${slug}" is taken; choose another.`);
    throw err;
  }
}

/** The project's database credentials, decrypted. */
export async function projectDatabase(config: EnvVars, project: Project): Promise<ProvisionedDatabase & { connection_string: string }> {
  const password = await unseal(project.db_password_sealed, config.ENCRYPTION_KEY);
  const db = { name: project.db_name, host: project.db_host, port: project.db_port, user: project.db_user, password, extensions: project.extensions, providerRef: project.db_provider_ref };
  return { ...db, connection_string: connectionString(db) };
}

/** Records a fresh measurement of the project's database size. */
export async function recordDatabaseSize(config: EnvVars, projectId: string, sizeBytes: number): Promise<void> {
  await controlPlane(config).query(`update projects set db_size_bytes = $2, db_size_measured_at = now() where id = $1`, [projectId, sizeBytes]);
}

/** Sets (or clears, with null) a project's own database limit; forgets the last size so it is measured again. */
export async function setDatabaseLimit(config: EnvVars, slug: string, limitBytes: number | null): Promise<void> {
  const rows = await controlPlane(config).query(
    `update projects set db_limit_bytes = $2, db_size_measured_at = null, updated_at = now() where slug = $1 returning id`,
    [slug, limitBytes],
  );
  if (!rows.length) throw notFound(`No project with slug ${slug}.`);
}

export function databaseLimitBytes(project: Project): number {
  return project.db_limit_bytes !== null ? Number(project.db_limit_bytes) : PLANS[project.plan].databaseBytes;
}

/** The project as the API shows it. The password appears only at creation and in /credentials. */
export function projectView(config: EnvVars, project: Project) {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    plan: project.plan,
    status: project.status,
    database: { name: project.db_name, host: project.db_host, port: project.db_port, user: project.db_user },
    git_repo_url: gitRepoUrl(config, project.slug),
    site_url: siteUrl(config, project.slug),
    created_at: new Date(project.created_at).toISOString(),
    updated_at: new Date(project.updated_at).toISOString(),
  };
}
