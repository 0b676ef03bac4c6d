import { beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { newAccount, newProject, type TestAccount } from "./client.ts";
import { authedUrl, commitFiles, gitFor, tempDir } from "./git-cli.ts";

const { git, gitOk } = gitFor("2");
const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("POST /{slug}/git/files (the owner, without git credentials)", () => {
  let owner: TestAccount;
  let slug: string;
  let url: string;

  beforeAll(async () => {
    owner = await newAccount();
    const project = await newProject(owner, "Files API");
    slug = project.slug;
    url = authedUrl(project.git_repo_url, owner.apiKey);
  });

  it("commits a file to an empty repository, creating main, and git clone sees it", async () => {
    const res = await owner.api("POST", `/${slug}/git/files`, { path: "src/index.js", content: b64("console.log('hi')\n"), message: "Add index" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ pushed: true, branch: "main", previous_commit: null, path: "src/index.js" });
    expect(res.body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.deploy).toBeUndefined();

    const work = await tempDir();
    await gitOk(work, "clone", "-q", url, "c");
    expect(await readFile(join(work, "c", "src/index.js"), "utf8")).toBe("console.log('hi')\n");
    expect(await gitOk(join(work, "c"), "log", "-1", "--format=%H %s %ae")).toBe(`${res.body.commit} Add index ${owner.email}`);
    await gitOk(join(work, "c"), "fsck", "--strict");
  });

  it("interleaves with CLI pushes without losing a commit, rewriting only the trees on the path", async () => {
    const work = await tempDir();
    await gitOk(work, "clone", "-q", url, "c");
    const repo = join(work, "c");
    await commitFiles(repo, "cli one", { "docs/guide.md": "guide\n", "src/util.js": "util\n" });
    await gitOk(repo, "push", "-q", "origin", "main");
    const api = await owner.api("POST", `/${slug}/git/files`, { path: "src/index.js", content: b64("v2\n"), message: "API edit" });
    expect(api.status).toBe(201);
    // The CLI clone is now behind: its push is refused until it pulls the API's commit.
    await commitFiles(repo, "cli two", { "docs/guide.md": "guide v2\n" });
    const refused = await git(repo, "push", "origin", "main");
    expect(refused.code).not.toBe(0);
    await gitOk(repo, "pull", "-q", "--rebase", "origin", "main");
    await gitOk(repo, "push", "-q", "origin", "main");
    expect(await readFile(join(repo, "src/index.js"), "utf8")).toBe("v2\n");
    const subjects = (await gitOk(repo, "log", "--format=%s")).split("\n");
    expect(subjects).toEqual(["cli two", "API edit", "cli one", "Add index"]);
    // Unchanged directories keep their tree ids.
    const docsBefore = await gitOk(repo, "rev-parse", `${api.body.commit}~1:docs`);
    expect(await gitOk(repo, "rev-parse", `${api.body.commit}:docs`)).toBe(docsBefore);
  });

  it("keeps every commit when many API pushes race each other", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => owner.api("POST", `/${slug}/git/files`, { path: `race/file-${i}.txt`, content: b64(`${i}\n`), message: `race ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const log = await owner.api("GET", `/${slug}/git/log?limit=100`);
    const messages = log.body.commits.map((c: any) => c.message.trim());
    for (let i = 0; i < 8; i++) expect(messages).toContain(`race ${i}`);
    const tree = await owner.api("GET", `/${slug}/git/tree?path=race`);
    expect(tree.body.entries.map((e: any) => e.name).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `file-${i}.txt`));
  });

  it("reads refs, a directory and a file at a ref, and commits on another branch", async () => {
    const branch = await owner.api("POST", `/${slug}/git/files`, { path: "README.md", content: b64("# on dev\n"), message: "dev readme", branch: "dev" });
    expect(branch.status).toBe(201);
    const refs = await owner.api("GET", `/${slug}/git/refs`);
    expect(refs.body.head).toBe("refs/heads/main");
    expect(refs.body.branches.map((b: any) => b.name).sort()).toEqual(["dev", "main"]);
    const file = await owner.api("GET", `/${slug}/git/file?ref=dev&path=README.md`);
    expect(file.status).toBe(200);
    expect(Buffer.from(file.body.content, "base64").toString()).toBe("# on dev\n");
    const root = await owner.api("GET", `/${slug}/git/tree?ref=main`);
    expect(root.body.entries.map((e: any) => [e.name, e.type])).toEqual(expect.arrayContaining([["src", "tree"], ["docs", "tree"]]));
    expect((await owner.api("GET", `/${slug}/git/file?path=nope.txt`)).status).toBe(404);
    expect((await owner.api("GET", `/${slug}/git/tree?ref=no-such-branch`)).status).toBe(404);
  });

  it("with deploy true, commits and starts a deployment of that commit", async () => {
    const res = await owner.api("POST", `/${slug}/git/files`, { path: "deploy.txt", content: b64("x"), message: "deploy me", deploy: true });
    expect(res.status).toBe(201);
    expect(res.body.deploy).toMatchObject({ status: "pending", deployment_id: expect.stringMatching(/^[0-9a-f-]{36}$/), url: expect.stringContaining(`${slug}.localhost`) });
    const status = await owner.api("GET", `/${slug}/deploy/status`);
    expect(status.body.deployment_id).toBe(res.body.deploy.deployment_id);
  });

  it("refuses bad input with 400 or 409 and changes nothing", async () => {
    const before = (await owner.api("GET", `/${slug}/git/refs`)).body;
    const cases: [unknown, number][] = [
      [{ path: "../etc/passwd", content: b64("x"), message: "m" }, 400],
      [{ path: ".git/config", content: b64("x"), message: "m" }, 400],
      [{ path: "a//b", content: b64("x"), message: "m" }, 400],
      [{ path: "ok.txt", content: "not base64!", message: "m" }, 400],
      [{ path: "ok.txt", content: b64("x"), message: "" }, 400],
      [{ path: "ok.txt", content: b64("x"), message: "m", branch: "bad..name" }, 400],
      [{ path: "src", content: b64("x"), message: "m" }, 409],
      [{ path: "deploy.txt/inner", content: b64("x"), message: "m" }, 409],
    ];
    for (const [body, status] of cases) {
      const res = await owner.api("POST", `/${slug}/git/files`, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.detail).toBeTruthy();
    }
    expect((await owner.api("GET", `/${slug}/git/refs`)).body).toEqual(before);
  });

  it("answers another account with 404 and none of the repository's data", async () => {
    const stranger = await newAccount();
    for (const [method, path, body] of [
      ["POST", `/${slug}/git/files`, { path: "x.txt", content: b64("x"), message: "m" }],
      ["GET", `/${slug}/git/refs`],
      ["GET", `/${slug}/git/log`],
      ["GET", `/${slug}/git/file?path=README.md&ref=dev`],
    ] as const) {
      const res = await stranger.api(method, path, body);
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toMatch(/[0-9a-f]{40}|README|race/);
    }
  });
});
