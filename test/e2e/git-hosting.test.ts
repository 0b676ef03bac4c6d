import { describe, expect, it, beforeAll } from "vitest";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { newAccount, newProject, type TestAccount } from "./client.ts";
import { authedUrl, commitFiles, git, gitOk, tempDir } from "./git-cli.ts";

describe("git hosting over smart HTTP (real git CLI)", () => {
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
