/**
 * Bytes the way Redis prints `used_memory_human`: B below 1 KiB, then K, M, G, T with two
 * decimals, in binary units (100 MB → "100.00M").
 */
export function humanBytes(bytes: number): string {
  const units = ["K", "M", "G", "T"];
  if (bytes < 1024) return `${bytes}B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)}${units[unit]}`;
}
