/**
 * Redis glob patterns (KEYS / SCAN MATCH) as a RegExp: `*` any run, `?` one character,
 * `[abc]`, `[^abc]`, `[a-z]` classes, and `\` escaping the next character.
 */
export function globToRegExp(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "*") out += "[\\s\\S]*";
    else if (ch === "?") out += "[\\s\\S]";
    else if (ch === "\\" && i + 1 < pattern.length) out += escape(pattern[++i]!);
    else if (ch === "[") {
      const end = classEnd(pattern, i + 1);
      if (end < 0) out += escape(ch);
      else {
        out += classToRegExp(pattern.slice(i + 1, end));
        i = end;
      }
    } else out += escape(ch);
  }
  return new RegExp(`^${out}$`, "u");
}

function classEnd(pattern: string, from: number): number {
  for (let i = from; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]" && i > from) return i;
  }
  return -1;
}

function classToRegExp(body: string): string {
  let negate = false;
  let i = 0;
  if (body[0] === "^") {
    negate = true;
    i = 1;
  }
  let out = "";
  for (; i < body.length; i++) {
    let ch = body[i]!;
    if (ch === "\\" && i + 1 < body.length) ch = body[++i]!;
    if (body[i + 1] === "-" && i + 2 < body.length) {
      let hi = body[i + 2]!;
      i += 2;
      if (hi === "\\" && i + 1 < body.length) hi = body[++i]!;
      // Redis accepts reversed ranges ([z-a] is [a-z]).
      const [a, b] = ch <= hi ? [ch, hi] : [hi, ch];
      out += `${escapeInClass(a)}-${escapeInClass(b)}`;
    } else out += escapeInClass(ch);
  }
  return `[${negate ? "^" : ""}${out}]`;
}

const escape = (ch: string) => ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const escapeInClass = (ch: string) => ch.replace(/[\]\\^-]/g, "\\$&");
