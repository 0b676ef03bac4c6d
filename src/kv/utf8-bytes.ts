const encoder = new TextEncoder();

/** UTF-8 length of a string, without allocating for ASCII (the common case). */
export function utf8Bytes(text: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return encoder.encode(text).byteLength;
  }
  return text.length;
}
