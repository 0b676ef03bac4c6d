import type { RepoSnapshot } from "../../durable-objects/git-repo.ts";
import { concat, ZERO_OID } from "./bytes.ts";
import { FLUSH, pkt, pktLines } from "./pkt-line.ts";

/** Reference discovery for smart HTTP v0 (gitprotocol-http, gitprotocol-pack). */

export type Service = "git-upload-pack" | "git-receive-pack";

const AGENT = "agent=slipway/1";

/** What each service offers. receive-pack says no-thin: every pushed pack must stand alone. */
export function capabilities(service: Service, snapshot: RepoSnapshot): string {
  if (service === "git-receive-pack") return `report-status delete-refs side-band-64k quiet ofs-delta no-thin object-format=sha1 ${AGENT}`;
  const headValid = snapshot.refs.some((r) => r.name === snapshot.head);
  const symref = headValid ? ` symref=HEAD:${snapshot.head}` : "";
  return `multi_ack_detailed side-band-64k side-band shallow deepen-relative no-progress ofs-delta${symref} object-format=sha1 ${AGENT}`;
}

/** The ref lines: HEAD first when it resolves, then every ref sorted, peeled tags after theirs. */
export function refLines(service: Service, snapshot: RepoSnapshot): string[] {
  const lines: string[] = [];
  const head = snapshot.refs.find((r) => r.name === snapshot.head);
  if (head && service === "git-upload-pack") lines.push(`${head.oid} HEAD`);
  for (const ref of snapshot.refs) {
    lines.push(`${ref.oid} ${ref.name}`);
    if (ref.peeled && service === "git-upload-pack") lines.push(`${ref.peeled} ${ref.name}^{}`);
  }
  return lines;
}

/** The body of GET info/refs?service=…: a service line, a flush, then the refs. */
export function advertisement(service: Service, snapshot: RepoSnapshot): Uint8Array {
  const lines = refLines(service, snapshot);
  const caps = capabilities(service, snapshot);
  if (lines.length === 0) lines.push(`${ZERO_OID} capabilities^{}`);
  lines[0] = `${lines[0]}\0${caps}`;
  return concat([pkt(`# service=${service}\n`), FLUSH, pktLines(lines)]);
}
