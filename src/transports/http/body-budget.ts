/**
 * Bytes of request bodies held in memory right now, by every HTTP handler in the process. Each body
 * is buffered whole before it is parsed, so without a total, many slow uploads at the size limit
 * hold that limit many times over. A handler refuses a chunk that would take the total past its
 * `maxBufferedBytes` (503 with Retry-After). Counting is one addition per chunk.
 */
let buffered = 0;

export const bodyBudget = {
  get buffered(): number {
    return buffered;
  },
  /** Counts `bytes` more, or answers false (and counts nothing) when that would pass `limit`. */
  reserve(bytes: number, limit: number): boolean {
    if (buffered + bytes > limit) return false;
    buffered += bytes;
    return true;
  },
  release(bytes: number): void {
    buffered -= bytes;
  },
};
