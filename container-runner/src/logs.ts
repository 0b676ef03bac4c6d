import { createReadStream } from "node:fs";
import { appendFile, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

type Follower = (chunk: string) => void;

/**
 * Build and runtime logs, one append-only file per deployment, plus live followers.
 * Lines read `<ISO time> [<source>] <text>`; sources are runner, build and app.
 */
export class DeploymentLogs {
  private followers = new Map<string, Set<Follower>>();
  private closed = new Set<string>();
  private writes = new Map<string, Promise<void>>();

  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  private file(deploymentId: string): string {
    return join(this.dir, `${deploymentId.replace(/[^A-Za-z0-9_-]/g, "_")}.log`);
  }

  /** Appends lines (split on newlines) from one source; writes stay in order. */
  write(deploymentId: string, source: "runner" | "build" | "app", text: string): void {
    const at = new Date().toISOString();
    const lines = text.replace(/\r/g, "").split("\n").filter((l, i, all) => l.length > 0 || i < all.length - 1);
    if (lines.length === 0) return;
    const chunk = lines.map((l) => `${at} [${source}] ${l}\n`).join("");
    this.closed.delete(deploymentId);
    const previous = this.writes.get(deploymentId) ?? Promise.resolve();
    const next = previous.then(() => appendFile(this.file(deploymentId), chunk)).catch(() => {});
    this.writes.set(deploymentId, next);
    for (const f of this.followers.get(deploymentId) ?? []) f(chunk);
  }

  /** Waits for pending writes of a deployment to reach its file. */
  async flush(deploymentId: string): Promise<void> {
    await this.writes.get(deploymentId);
  }

  /** Marks a deployment's log as finished: followers are released. */
  close(deploymentId: string): void {
    this.closed.add(deploymentId);
    for (const f of this.followers.get(deploymentId) ?? []) f("");
    this.followers.delete(deploymentId);
  }

  isClosed(deploymentId: string): boolean {
    return this.closed.has(deploymentId);
  }

  async exists(deploymentId: string): Promise<boolean> {
    return stat(this.file(deploymentId)).then(() => true, () => false);
  }

  /** The whole log so far, then (when follow) every new chunk until closed; "" ends it. */
  async read(deploymentId: string, onChunk: (chunk: string) => void, follow: boolean): Promise<() => void> {
    await this.flush(deploymentId);
    let buffered: string[] | null = [];
    const follower: Follower = (chunk) => (buffered ? buffered.push(chunk) : onChunk(chunk));
    if (follow && !this.closed.has(deploymentId)) {
      if (!this.followers.has(deploymentId)) this.followers.set(deploymentId, new Set());
      this.followers.get(deploymentId)!.add(follower);
    }
    const existing = await readAll(this.file(deploymentId));
    onChunk(existing);
    const pending = buffered;
    buffered = null;
    // Chunks that arrived while the file was read may repeat its tail; skip those already seen.
    for (const chunk of pending) if (chunk === "" || !existing.endsWith(chunk)) onChunk(chunk);
    if (!follow || this.closed.has(deploymentId)) onChunk("");
    return () => this.followers.get(deploymentId)?.delete(follower);
  }

  async remove(deploymentId: string): Promise<void> {
    this.close(deploymentId);
    await this.flush(deploymentId);
    await rm(this.file(deploymentId), { force: true });
  }
}

function readAll(file: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    createReadStream(file, "utf8")
      .on("data", (d) => (text += d))
      .on("end", () => resolve(text))
      .on("error", () => resolve(text));
  });
}
