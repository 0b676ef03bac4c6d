import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Which repository addresses a runner may clone. The platform's own git host is always
 * allowed; an outside repo_url must be https, carry no credentials, and resolve only to
 * public addresses (no loopback, private, link-local or metadata ranges).
 */
export async function checkRepoUrl(raw: string, opts: { external: boolean; platformHosts: string[] }): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "repo_url is not a valid URL";
  }
  if (opts.platformHosts.includes(url.host)) return null;
  if (!opts.external) return url.protocol === "file:" || url.protocol === "http:" || url.protocol === "https:" ? null : "unsupported repository protocol";
  if (url.protocol !== "https:") return "repo_url must be an https:// address";
  if (url.username || url.password) return "repo_url must not carry credentials";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "repo_url must not point at this machine";
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `repo_url host "${host}" does not resolve`;
  }
  if (addresses.some(isPrivateAddress)) return "repo_url must resolve to a public address";
  return null;
}

/** Loopback, private, link-local, CGNAT, unspecified and other non-public ranges, v4 and v6. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const [a, b] = address.split(".").map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224;
  }
  const v6 = address.toLowerCase();
  const mapped = v6.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped) return isPrivateAddress(mapped[1]);
  return v6 === "::" || v6 === "::1" || v6.startsWith("fc") || v6.startsWith("fd") || /^fe[89ab]/.test(v6) || v6.startsWith("ff");
}
