import { describe, expect, it, beforeAll } from "vitest";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { newAccount, newProject, type TestAccount } from "./client.ts";
import { authedUrl, commitFiles, gitFor, tempDir } from "./git-cli.ts";

const { git, gitOk } = gitFor("2");

describe.each(["0", "2"] as const)("git hosting over smart HTTP, protocol v%s (real git CLI)", (protocol) => {
  const { git, gitOk } = gitFor(protocol);
  let owner: TestAccount;
  let project: any;
  let url: string;

  beforeAll(async () => {
    owner = await newAccount();
    project = await newProject(owner, "Git Project");
    url = authedUrl(project.git_repo_url, owner.apiKey);
  });

  it("clones the empty repository, pushes, and a fresh clone has the history", async () => {
    const work = await tempDir();
    const clone = await git(work, "clone", url, "repo");
    expect(clone.code, clone.stderr).toBe(0);
    expect(clone.stderr).toMatch(/empty repository/);
    const repo = join(work, "repo");
    await gitOk(repo, "checkout", "-q", "-b", "main");
    await commitFiles(repo, "first", { "README.md": "# hello\n", "src/app.js": "console.log(1)\n" });
    const tip = await commitFiles(repo, "second", { "src/app.js": "console.log(2)\n" });
    const push = await git(repo, "push", "origin", "main");
    expect(push.code, push.stderr).toBe(0);

    const other = await tempDir();
    await gitOk(other, "clone", "-q", url, "copy");
    expect(await gitOk(join(other, "copy"), "rev-parse", "HEAD")).toBe(tip);
    expect(await readFile(join(other, "copy", "src/app.js"), "utf8")).toBe("console.log(2)\n");
    expect(await gitOk(join(other, "copy"), "rev-list", "--count", "HEAD")).toBe("2");
    await gitOk(join(other, "copy"), "fsck", "--strict");
  });
});

describe.each(["0", "2"] as const)("git hosting over protocol v%s: history changes and refusals (real git CLI)", (protocol) => {
  const { git, gitOk } = gitFor(protocol);
  let owner: TestAccount;
  let project: any;
  let url: string;
  let repo: string;

  beforeAll(async () => {
    owner = await newAccount();
    project = await newProject(owner, "Git Flows");
    url = authedUrl(project.git_repo_url, owner.apiKey);
    const work = await tempDir();
    repo = join(work, "repo");
    await gitOk(work, "init", "-q", "-b", "main", "repo");
    await gitOk(repo, "remote", "add", "origin", url);
    for (let i = 1; i <= 5; i++) await commitFiles(repo, `commit ${i}`, { "count.txt": `${i}\n`, [`dir/file${i}.txt`]: `file ${i}\n` });
    await gitOk(repo, "push", "-q", "origin", "main");
  });

  it("fetches only what is new into an existing clone", async () => {
    const other = join(await tempDir(), "clone");
    await gitOk(join(other, ".."), "clone", "-q", url, "clone");
    const tip = await commitFiles(repo, "commit 6", { "count.txt": "6\n" });
    await gitOk(repo, "push", "-q", "origin", "main");
    const fetch = await git(other, "fetch", "origin");
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(await gitOk(other, "rev-parse", "origin/main")).toBe(tip);
    await gitOk(other, "merge", "-q", "--ff-only", "origin/main");
    expect(await readFile(join(other, "count.txt"), "utf8")).toBe("6\n");
    await gitOk(other, "fsck", "--strict");
  });

  it("serves a shallow clone with --depth 1 and lets it fetch later commits", async () => {
    const work = await tempDir();
    await gitOk(work, "clone", "-q", "--depth", "1", url, "shallow");
    const shallow = join(work, "shallow");
    expect(await gitOk(shallow, "rev-list", "--count", "HEAD")).toBe("1");
    expect(await readFile(join(shallow, ".git", "shallow"), "utf8")).toContain(await gitOk(repo, "rev-parse", "HEAD"));
    await gitOk(shallow, "fsck");
    const tip = await commitFiles(repo, "after shallow", { "later.txt": "later\n" });
    await gitOk(repo, "push", "-q", "origin", "main");
    await gitOk(shallow, "fetch", "-q", "origin");
    expect(await gitOk(shallow, "rev-parse", "origin/main")).toBe(tip);
    // Deepening by one, then to the whole history.
    await gitOk(shallow, "fetch", "-q", "--deepen", "1", "origin");
    expect(Number(await gitOk(shallow, "rev-list", "--count", "origin/main"))).toBe(3);
    await gitOk(shallow, "fetch", "-q", "--unshallow", "origin");
    expect(await gitOk(shallow, "rev-list", "--count", "origin/main")).toBe(await gitOk(repo, "rev-list", "--count", "main"));
    await gitOk(shallow, "fsck", "--strict");
  });

  it("creates and deletes a branch, and pushes and clones an annotated tag", async () => {
    await gitOk(repo, "checkout", "-q", "-b", "feature");
    const feature = await commitFiles(repo, "feature work", { "feature.txt": "yes\n" });
    await gitOk(repo, "tag", "-a", "v1.0", "-m", "release 1.0");
    await gitOk(repo, "push", "-q", "origin", "feature", "v1.0");
    await gitOk(repo, "checkout", "-q", "main");
    let remote = await gitOk(repo, "ls-remote", "origin");
    expect(remote).toContain(`${feature}\trefs/heads/feature`);
    expect(remote).toContain(`${feature}\trefs/tags/v1.0^{}`);

    const work = await tempDir();
    await gitOk(work, "clone", "-q", url, "tagged");
    expect(await gitOk(join(work, "tagged"), "rev-parse", "v1.0^{commit}")).toBe(feature);
    expect(await gitOk(join(work, "tagged"), "cat-file", "-t", "v1.0")).toBe("tag");

    // A new branch at a commit the server already has: the pack carries no objects.
    const copy = await git(repo, "push", "origin", "feature:refs/heads/copy");
    expect(copy.code, copy.stderr).toBe(0);
    expect(await gitOk(repo, "ls-remote", "origin", "refs/heads/copy")).toBe(`${feature}\trefs/heads/copy`);
    await gitOk(repo, "push", "-q", "origin", "--delete", "copy");

    const del = await git(repo, "push", "origin", "--delete", "feature");
    expect(del.code, del.stderr).toBe(0);
    remote = await gitOk(repo, "ls-remote", "origin");
    expect(remote).not.toContain("refs/heads/feature");
    expect(remote).toContain("refs/heads/main");
  });

  it("refuses to delete the branch HEAD points at", async () => {
    const del = await git(repo, "push", "origin", "--delete", "main");
    expect(del.code).not.toBe(0);
    expect(del.stderr).toMatch(/deletion of the current branch prohibited/);
  });

  it("rejects a non-fast-forward push from a stale clone and accepts it with --force", async () => {
    const work = await tempDir();
    await gitOk(work, "clone", "-q", url, "stale");
    const stale = join(work, "stale");
    await commitFiles(repo, "moves main on", { "race.txt": "first\n" });
    await gitOk(repo, "push", "-q", "origin", "main");
    const rewritten = await commitFiles(stale, "diverges", { "race.txt": "second\n" });
    const rejected = await git(stale, "push", "origin", "main");
    expect(rejected.code).not.toBe(0);
    expect(rejected.stderr).toMatch(/rejected/);
    const forced = await git(stale, "push", "--force", "origin", "main");
    expect(forced.code, forced.stderr).toBe(0);
    expect((await gitOk(repo, "ls-remote", "origin", "refs/heads/main")).split("\t")[0]).toBe(rewritten);
    // The server itself refuses an update whose expected old value is stale (compare-and-swap).
    await gitOk(repo, "fetch", "-q", "origin");
    const lease = await git(repo, "push", `--force-with-lease=main:${await gitOk(repo, "rev-parse", "HEAD")}`, "origin", "HEAD:main");
    expect(lease.code).not.toBe(0);
  });

  it("asks for credentials without a key and refuses a wrong key; another account's repository is not found", async () => {
    const work = await tempDir();
    const anonymous = await git(work, "clone", project.git_repo_url, "anon");
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    const wrong = await git(work, "clone", authedUrl(project.git_repo_url, "slw_wrongwrongwrong"), "wrong");
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/Authentication failed/);

    const stranger = await newAccount();
    const res = await fetch(`${project.git_repo_url}/info/refs?service=git-upload-pack`, {
      headers: { Authorization: `Basic ${btoa(`x:${stranger.apiKey}`)}` },
    });
    expect(res.status).toBe(404);
    const body = await res.text();
    expect(body).not.toMatch(/refs\/heads/);
    const push = await git(repo, "push", authedUrl(project.git_repo_url, stranger.apiKey), "main:refs/heads/stolen");
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/not found/);
    const unauth = await fetch(`${project.git_repo_url}/info/refs?service=git-receive-pack`);
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("www-authenticate")).toMatch(/^Basic /);
  });
});

describe("git hosting: a repository with thousands of objects (real git CLI)", () => {
  it("pushes and clones a few thousand objects and a few MB of history intact", async () => {
    const owner = await newAccount();
    const project = await newProject(owner, "Big Repo");
    const url = authedUrl(project.git_repo_url, owner.apiKey);
    const work = await tempDir("big");
    const repo = join(work, "big");
    await gitOk(work, "init", "-q", "-b", "main", "big");
    // fast-import builds 400 commits over 40 directories quickly; some blobs are incompressible.
    const { execFileSync } = await import("node:child_process");
    const { randomBytes } = await import("node:crypto");
    const chunks: Buffer[] = [];
    let mark = 0;
    for (let c = 0; c < 400; c++) {
      const lines: Buffer[] = [];
      for (let f = 0; f < 6; f++) {
        const path = `dir${(c * 7 + f) % 40}/file${(c + f * 13) % 90}.${f === 0 ? "bin" : "txt"}`;
        const body = f === 0 ? randomBytes(8000) : Buffer.from(`commit ${c} file ${f}\n`.repeat(40 + f * 10));
        lines.push(Buffer.from(`M 100644 inline ${path}\ndata ${body.length}\n`), body, Buffer.from("\n"));
      }
      const msg = `commit ${c}\n`;
      chunks.push(Buffer.from(`commit refs/heads/main\nmark :${++mark}\ncommitter T <t@example.test> ${1700000000 + c} +0000\ndata ${msg.length}\n${msg}`), ...lines, Buffer.from("\n"));
    }
    execFileSync("git", ["fast-import", "--quiet"], { cwd: repo, input: Buffer.concat(chunks) });
    const objects = Number((await gitOk(repo, "rev-list", "--objects", "--all")).split("\n").length);
    expect(objects).toBeGreaterThan(2500);
    await gitOk(repo, "remote", "add", "origin", url);
    const push = await git(repo, "push", "origin", "main");
    expect(push.code, push.stderr).toBe(0);

    await gitOk(work, "clone", "-q", url, "copy");
    const copy = join(work, "copy");
    expect(await gitOk(copy, "rev-parse", "HEAD")).toBe(await gitOk(repo, "rev-parse", "main"));
    expect((await gitOk(copy, "rev-list", "--objects", "--all")).split("\n").length).toBe(objects);
    await gitOk(copy, "fsck", "--strict");
    const size = await gitOk(copy, "count-objects", "-v");
    expect(Number(/size-pack: (\d+)/.exec(size)![1])).toBeGreaterThan(3000); // KiB

    await gitOk(work, "clone", "-q", "--depth", "1", url, "shallow");
    expect(await gitOk(join(work, "shallow"), "rev-list", "--count", "HEAD")).toBe("1");
    await gitOk(join(work, "shallow"), "fsck");
  });
});
