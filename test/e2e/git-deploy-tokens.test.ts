import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { newAccount, newProject } from "./client.ts";
import { authedUrl, commitFiles, gitFor, tempDir } from "./git-cli.ts";

const { git, gitOk } = gitFor("2");

describe("deploy tokens (a builder cloning without the account's key)", () => {
  it("clone and fetch with a deploy token, never push, and stop working once revoked", async () => {
    const owner = await newAccount();
    const project = await newProject(owner, "Deploy Tokens");
    await owner.api("POST", `/${project.slug}/git/files`, { path: "app.js", content: Buffer.from("ok\n").toString("base64"), message: "app" });
    const created = await owner.api("POST", `/${project.slug}/git/deploy-tokens`, { label: "builder" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ label: "builder", read_only: true });
    expect(created.body.token).toMatch(/^slw_dt_/);
    const listed = await owner.api("GET", `/${project.slug}/git/deploy-tokens`);
    expect(listed.body.deploy_tokens).toEqual([{ id: created.body.id, label: "builder", created_at: created.body.created_at }]);

    const url = authedUrl(project.git_repo_url, created.body.token, "builder");
    const work = await tempDir();
    await gitOk(work, "clone", "-q", "--depth", "1", url, "c");
    expect(await readFile(join(work, "c", "app.js"), "utf8")).toBe("ok\n");
    await commitFiles(join(work, "c"), "builder tries to push", { "x.txt": "x\n" });
    const push = await git(join(work, "c"), "push", "origin", "HEAD:main");
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/403/);
    // The token opens only its own repository, and not the API.
    const other = await newProject(owner, "Other");
    expect((await git(work, "clone", "-q", authedUrl(other.git_repo_url, created.body.token), "o")).code).not.toBe(0);
    expect((await fetch(`${other.git_repo_url}/info/refs?service=git-upload-pack`, { headers: { Authorization: `Basic ${btoa(`b:${created.body.token}`)}` } })).status).toBe(401);
    expect((await owner.api("GET", "/projects", undefined, { "X-API-Key": created.body.token })).status).toBe(401);

    expect((await owner.api("DELETE", `/${project.slug}/git/deploy-tokens/${created.body.id}`)).status).toBe(200);
    const after = await git(join(work, "c"), "fetch", "origin");
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/Authentication failed/);
  });
});
