import pg from "pg";
import { migrate } from "./migrate.ts";

const CONTROL_DB = "slipway";
const CONTROL_ROLE = "slipway_control";

/**
 * Prepares the local server the way the platform expects it: the control-plane database
 * and its own role, CONNECT revoked from PUBLIC on the server's shared databases (so a
 * project's role reaches only its own database), then the migrations.
 * Returns the control plane's connection string.
 */
export async function prepareControlPlane(superuserUrl: string, password: string): Promise<string> {
  const admin = new pg.Client({ connectionString: superuserUrl });
  await admin.connect();
  try {
    const role = await admin.query(`select 1 from pg_roles where rolname = $1`, [CONTROL_ROLE]);
    if (!role.rowCount) await admin.query(`create role ${CONTROL_ROLE} login password '${password}'`);
    else await admin.query(`alter role ${CONTROL_ROLE} password '${password}'`);
    const db = await admin.query(`select 1 from pg_database where datname = $1`, [CONTROL_DB]);
    if (!db.rowCount) await admin.query(`create database ${CONTROL_DB} owner ${CONTROL_ROLE}`);
    await admin.query(`revoke connect on database postgres, template1, ${CONTROL_DB} from public`);
    await admin.query(`grant connect on database ${CONTROL_DB} to ${CONTROL_ROLE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(superuserUrl);
  url.username = CONTROL_ROLE;
  url.password = password;
  url.pathname = `/${CONTROL_DB}`;
  await migrate(url.href);
  return url.href;
}
