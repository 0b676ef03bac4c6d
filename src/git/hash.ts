import { toHex, utf8 } from "./bytes.ts";

/** SHA-1 object ids and the CRC-32 of pack index entries. */

export async function sha1(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-1", data));
}

/** A streaming SHA-1 for packs written piece by piece (workerd's DigestStream). */
export class Sha1Stream {
  private stream = new crypto.DigestStream("SHA-1");
  private writer = this.stream.getWriter();

  update(data: Uint8Array): Promise<void> {
    // DigestStream consumes the buffer; give it a copy so callers may reuse theirs.
    return this.writer.write(data.slice());
  }

  async digest(): Promise<Uint8Array> {
    await this.writer.close();
    return new Uint8Array(await this.stream.digest);
  }
}

export const OBJECT_TYPES = ["commit", "tree", "blob", "tag"] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** The object id of a git object: SHA-1 of "<type> <size>\0" + data. */
export async function objectId(type: ObjectType, data: Uint8Array): Promise<string> {
  const header = utf8(`${type} ${data.length}\0`);
  const all = new Uint8Array(header.length + data.length);
  all.set(header);
  all.set(data, header.length);
  return toHex(await sha1(all));
}

let crcTable: Uint32Array | undefined;

export function crc32(data: Uint8Array, crc = 0): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
