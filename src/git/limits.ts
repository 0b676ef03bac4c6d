/** Limits of the git hosting, in one place (the README lists them). */
export const GIT_LIMITS = {
  /** Largest pack one push may send; the pack is checked whole before anything is stored. */
  maxPushPackBytes: 32 * 1024 * 1024,
  /** Largest size of a push's objects once deltas are resolved (each stored whole, compressed). */
  maxStoredPushBytes: 64 * 1024 * 1024,
  /** Largest upload-pack request (wants and haves) read into memory. */
  maxNegotiationBytes: 4 * 1024 * 1024,
};
