import type { Client } from "@neondatabase/serverless";
import { WANTED_EXTENSIONS } from "./provisioner.ts";

const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Creates those of the wanted extensions that the server has and the connected role may
 * create; returns their names. One the role may not create is left out, not fatal: the
 * project's /info reports it as unavailable.
 */
export async function createExtensions(admin: Client): Promise<string[]> {
  const available = await admin.query(`select name from pg_available_extensions where name = any($1::text[])`, [[...WANTED_EXTENSIONS]]);
  const names = new Set(available.rows.map((r: { name: string }) => r.name));
  const created: string[] = [];
  for (const ext of WANTED_EXTENSIONS) {
    if (!names.has(ext)) continue;
    try {
      await admin.query(`create extension if not exists "${ext}"`);
      created.push(ext);
    } catch (err) {
      if ((err as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw err;
    }
  }
  return created;
}
