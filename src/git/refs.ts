/** Which ref names a push may write: branches and tags with names git itself accepts. */

export function refNameProblem(ref: string): string | null {
  if (!ref.startsWith("refs/heads/") && !ref.startsWith("refs/tags/")) return "only refs/heads/* and refs/tags/* can be pushed";
  const bad =
    ref.length > 255 ||
    /[\x00-\x20\x7f~^:?*[\\]/.test(ref) ||
    ref.includes("..") ||
    ref.includes("@{") ||
    ref.includes("//") ||
    ref.endsWith("/") ||
    ref.endsWith(".") ||
    ref.split("/").some((part) => part === "" || part.startsWith(".") || part.endsWith(".lock"));
  return bad ? "invalid ref name" : null;
}
