import { parseCommit, parseTag, parseTree, GITLINK_MODE, TREE_MODE, type Commit } from "./objects.ts";
import type { RepoStore } from "./repo-store.ts";

/**
 * Choosing the objects a fetch sends: the commits reachable from the wants but not from
 * what the client has, cut at a depth for shallow clones, and the trees and blobs of
 * those commits minus those of the commits at the edge of what the client has.
 */

export type Selection = {
  /** Every object to send. */
  objects: string[];
  /** Commits sent without their parents (the client records them as shallow). */
  shallow: string[];
  /** Commits the client had as shallow whose parents are now sent. */
  unshallow: string[];
};

export class Walker {
  private commits = new Map<string, Commit>();

  constructor(private store: RepoStore) {}

  async commit(oid: string): Promise<Commit> {
    let c = this.commits.get(oid);
    if (!c) {
      const o = await this.store.readObject(oid);
      if (!o || o.type !== "commit") throw new Error(`commit ${oid} is missing`);
      c = parseCommit(o.data);
      this.commits.set(oid, c);
    }
    return c;
  }

  /** Commits reachable from `tips`, not following the parents of `stopAt` (the client's shallow commits). */
  async ancestors(tips: string[], stopAt: Set<string>): Promise<Set<string>> {
    const seen = new Set<string>();
    const queue = [...tips];
    while (queue.length) {
      const oid = queue.pop()!;
      if (seen.has(oid)) continue;
      seen.add(oid);
      if (!stopAt.has(oid)) queue.push(...(await this.commit(oid)).parents);
    }
    return seen;
  }

  /** Adds a tree and everything below it to `into`, skipping what `exclude` holds. */
  async addTree(oid: string, into: Set<string>, exclude: Set<string>): Promise<void> {
    if (into.has(oid) || exclude.has(oid)) return;
    into.add(oid);
    const o = await this.store.readObject(oid);
    if (!o) throw new Error(`tree ${oid} is missing`);
    for (const e of parseTree(o.data)) {
      if (e.mode === GITLINK_MODE) continue;
      if (e.mode === TREE_MODE) await this.addTree(e.oid, into, exclude);
      else if (!exclude.has(e.oid)) into.add(e.oid);
    }
  }

  async select(opts: { wants: string[]; common: string[]; depth: number; relative?: boolean; clientShallow: Set<string> }): Promise<Selection> {
    const objects = new Set<string>();
    // Annotated tags among the wants are sent themselves, then followed to what they tag.
    const wantCommits: string[] = [];
    for (let oid of opts.wants) {
      for (let i = 0; i < 10; i++) {
        const o = await this.store.readObject(oid);
        if (!o) throw new Error(`object ${oid} is missing`);
        if (o.type !== "tag") {
          if (o.type === "commit") wantCommits.push(oid);
          else if (o.type === "tree") await this.addTree(oid, objects, new Set());
          else objects.add(oid);
          break;
        }
        objects.add(oid);
        oid = parseTag(o.data).object;
      }
    }

    const uninteresting = await this.ancestors(opts.common, opts.clientShallow);
    // Each commit gets `left`: how many levels, itself included, may still be sent below a
    // want (Infinity without a depth). A commit the client has is not sent; without a depth
    // the walk stops there, with one it goes on through (the depth counts from the wants,
    // or with deepen-relative from the client's shallow commits) to find the new boundary.
    const deepening = opts.depth > 0;
    const left = new Map<string, number>();
    const edge = new Set<string>(opts.common.filter((c) => uninteresting.has(c)));
    let queue = [...new Set(wantCommits)];
    for (const c of queue) left.set(c, deepening && !opts.relative ? opts.depth : Infinity);
    while (queue.length) {
      const next: string[] = [];
      for (const oid of queue) {
        let l = left.get(oid)!;
        if (uninteresting.has(oid) && !deepening) {
          edge.add(oid);
          continue;
        }
        if (opts.relative && deepening && opts.clientShallow.has(oid) && l === Infinity) left.set(oid, (l = opts.depth + 1));
        if (l <= 1) continue;
        for (const p of (await this.commit(oid)).parents) {
          if ((left.get(p) ?? 0) >= l - 1) continue;
          left.set(p, l - 1);
          next.push(p);
        }
      }
      queue = next;
    }
    const included: string[] = [];
    const shallow: string[] = [];
    const unshallow: string[] = [];
    for (const [oid, l] of left) {
      if (uninteresting.has(oid)) edge.add(oid);
      else included.push(oid);
      if (!deepening || (await this.commit(oid)).parents.length === 0) continue;
      if (l <= 1 && !opts.clientShallow.has(oid)) shallow.push(oid);
      if (l > 1 && opts.clientShallow.has(oid)) unshallow.push(oid);
    }

    // Objects the client has: everything in the trees of the edge commits.
    const have = new Set<string>();
    for (const c of edge) await this.addTree((await this.commit(c)).tree, have, new Set());
    for (const oid of included) {
      objects.add(oid);
      await this.addTree((await this.commit(oid)).tree, objects, have);
    }
    return { objects: [...objects], shallow, unshallow };
  }
}
