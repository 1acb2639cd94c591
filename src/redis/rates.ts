/**
 * Per-principal token buckets in Redis, so a principal's rate budget is one budget over every
 * instance. One script per take reads, refills, takes and writes in one step (token-bucket.ts does
 * the same sums in memory), on Redis's own clock so instances with skewed clocks agree:
 *
 *   rate:<principal>   hash { r: request tokens, b: byte tokens, t: when (ms) }
 *
 * The key expires when its buckets would be full again: an idle principal costs nothing. While
 * Redis is away a take lets the request through (counted and logged once per outage by the link).
 */
import type { RateStore } from '../state/rates.js';
import type { RateLimits } from '../state/token-bucket.js';
import type { Link } from './connection.js';

// KEYS: the bucket. ARGV: requestsPerSecond, requestBurst, requestBytesPerSecond, requestBytesBurst,
// requests, bytes, force ('1'). Returns 0 when taken, else the milliseconds to wait.
const TAKE = `
local rr, br, rb, bb = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local requests, cost = tonumber(ARGV[5]), tonumber(ARGV[6])
if ARGV[7] ~= '1' then cost = math.min(cost, bb) end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local kept = redis.call('HMGET', KEYS[1], 'r', 'b', 't')
local r, b = br, bb
if kept[3] then
  local elapsed = math.max(0, now - tonumber(kept[3])) / 1000
  r = math.min(br, tonumber(kept[1]) + elapsed * rr)
  b = math.min(bb, tonumber(kept[2]) + elapsed * rb)
end
if ARGV[7] ~= '1' and (r < requests or b < cost) then
  return math.max(1, math.ceil(math.max((requests - r) / rr, (cost - b) / rb) * 1000))
end
r = r - requests
b = math.max(-bb, b - cost)
redis.call('HSET', KEYS[1], 'r', string.format('%.4f', r), 'b', string.format('%.4f', b), 't', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max((br - r) / rr, (bb - b) / rb, 0) * 1000) + 1)
return 0`;

export class RedisRates implements RateStore {
  constructor(private readonly link: Link) {}

  async take(principal: string, limits: RateLimits, requests: number, bytes: number, force = false): Promise<number> {
    const { prefix, commands } = this.link;
    const { requestsPerSecond, requestBurst, requestBytesPerSecond, requestBytesBurst } = limits;
    const args = [requestsPerSecond, requestBurst, requestBytesPerSecond, requestBytesBurst, requests, bytes, force ? 1 : 0].map(String);
    try {
      return Number(await commands.eval(TAKE, { keys: [`${prefix}rate:${principal}`], arguments: args }));
    } catch (error) {
      this.link.failed('rate limit', error);
      return 0;
    }
  }
}
