/** Protections around user SQL; documented in the README under "Limits". */
export const SQL_LIMITS = {
  /** statement_timeout set on every session (the user may lower it; raising it is their risk). */
  statementTimeoutMs: 30_000,
  /** Rows returned in one response; the rest are cut and `truncated` says so. */
  maxRows: 5_000,
  /** Approximate JSON bytes of returned rows before they are cut. */
  maxResultBytes: 5 * 1024 * 1024,
  /** Longest accepted query text. */
  maxQueryBytes: 1024 * 1024,
  maxParams: 1_000,
} as const;
