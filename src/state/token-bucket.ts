/**
 * The token bucket behind per-principal rate limits, as pure arithmetic on a small record: the
 * memory store keeps records in a Map, and the Redis script (redis/rates.ts) does the same sums in
 * Lua. Two buckets in one record: requests and request bytes. Each refills at its rate per second up
 * to its burst; a take that does not fit changes nothing and says how long to wait.
 */

/** The limits of one principal's buckets (the server's `rateLimit` option). */
export interface RateLimits {
  /** Requests per second, sustained. */
  requestsPerSecond: number;
  /** Requests taken at once after an idle spell (the bucket's size). */
  requestBurst: number;
  /** Request body bytes per second, sustained. */
  requestBytesPerSecond: number;
  /** Request body bytes taken at once (a body larger than this costs this much: it can pass when the bucket is full). */
  requestBytesBurst: number;
}

/** Tokens left in each bucket at time `at` (ms since the epoch). */
export interface Bucket {
  requests: number;
  bytes: number;
  at: number;
}

/** The bucket at `now`: refilled for the time since `at`, never past the bursts. A missing bucket is full. */
export function refill(bucket: Bucket | undefined, limits: RateLimits, now: number): Bucket {
  if (bucket === undefined) return { requests: limits.requestBurst, bytes: limits.requestBytesBurst, at: now };
  const elapsed = Math.max(0, now - bucket.at) / 1000;
  return {
    requests: Math.min(limits.requestBurst, bucket.requests + elapsed * limits.requestsPerSecond),
    bytes: Math.min(limits.requestBytesBurst, bucket.bytes + elapsed * limits.requestBytesPerSecond),
    at: now,
  };
}

/**
 * Takes `requests` and `bytes` from the refilled `bucket` (in place). Answers 0 when taken, else the
 * milliseconds until they would fit (and takes nothing). A request costs at most one burst of bytes,
 * so a body larger than the burst passes when the bucket is full. `force` takes without refusing
 * (bytes of a body whose length was not declared, counted after it was read): the bytes bucket may
 * then go into debt, at most one burst deep, and the principal's next requests wait until it is paid.
 */
export function take(bucket: Bucket, limits: RateLimits, requests: number, bytes: number, force = false): number {
  const cost = force ? bytes : Math.min(bytes, limits.requestBytesBurst);
  if (!force && (bucket.requests < requests || bucket.bytes < cost)) {
    const waitRequests = (requests - bucket.requests) / limits.requestsPerSecond;
    const waitBytes = (cost - bucket.bytes) / limits.requestBytesPerSecond;
    return Math.max(1, Math.ceil(Math.max(waitRequests, waitBytes) * 1000));
  }
  bucket.requests -= requests;
  bucket.bytes = Math.max(-limits.requestBytesBurst, bucket.bytes - cost);
  return 0;
}

/** Milliseconds until the bucket is full again: after that, forgetting it loses nothing. */
export function untilFull(bucket: Bucket, limits: RateLimits): number {
  const requests = (limits.requestBurst - bucket.requests) / limits.requestsPerSecond;
  const bytes = (limits.requestBytesBurst - bucket.bytes) / limits.requestBytesPerSecond;
  return Math.ceil(Math.max(requests, bytes, 0) * 1000);
}
