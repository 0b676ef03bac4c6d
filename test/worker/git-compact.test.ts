import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, it } from "vitest";
import { utf8 } from "../../src/git/bytes.ts";
import { commitFile } from "../../src/git/commit-file.ts";
import { compactSmallPacks, COMPACT_AT_PACKS } from "../../src/git/compact.ts";
import { RepoStore } from "../../src/git/repo-store.ts";
import { log, readFile } from "../../src/git/browse.ts";
import { packKey } from "../../src/git/storage-keys.ts";

it("merges many small packs into one without losing an object, and deletes the old ones after a grace period", async () => {
  const project = { id: "compact-me", slug: "compact-me" };
  const author = { name: "T", email: "t@example.test" };
  for (let i = 0; i < COMPACT_AT_PACKS; i++) {
    await commitFile(env, project, { path: `dir/file-${i}.txt`, content: utf8(`content ${i}\n`), message: `commit ${i}`, branch: "main", author }, "test");
  }
  const before = await new RepoStore(env, project.id, project.slug).open();
  expect(before.snapshot.packs.length).toBe(COMPACT_AT_PACKS);
  const oldNames = before.snapshot.packs.map((p) => p.name);

  expect(await compactSmallPacks(env, project)).toBe(true);
  const after = await new RepoStore(env, project.id, project.slug).open();
  expect(after.snapshot.packs.length).toBe(1);
  expect(after.snapshot.refs).toEqual(before.snapshot.refs);
  expect((await log(after, "main", 100)).commits.length).toBe(COMPACT_AT_PACKS);
  for (let i = 0; i < COMPACT_AT_PACKS; i++) {
    const f = await readFile(after, "main", `dir/file-${i}.txt`, 1000);
    expect(atob(f.content)).toBe(`content ${i}\n`);
  }
  // A second compaction finds nothing to do.
  expect(await compactSmallPacks(env, project)).toBe(false);

  // Old packs stay readable until the grace period has passed, then the alarm removes them.
  expect(await env.BUCKET.head(packKey(project.id, oldNames[0]!))).not.toBeNull();
  const stub = env.GIT_REPO.get(env.GIT_REPO.idFromName(project.id));
  await runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec(`update retired_packs set retired_at = ?`, new Date(Date.now() - 3_600_000).toISOString());
  });
  await runDurableObjectAlarm(stub);
  for (const name of oldNames) expect(await env.BUCKET.head(packKey(project.id, name))).toBeNull();
});
