/**
 * DPoP proof ids in Redis, so a proof replayed on another instance is refused too. One script per
 * proof keeps the bounds across instances in one step:
 *
 *   dpop:<principal>   sorted set: that principal's proof ids, scored by when they may leave
 *   dpop-all           sorted set: every kept id (principal and jti), for maxTotalProofs
 *
 * Ids whose time passed are dropped by the next write; a principal's set expires with its last id.
 */
import { proofLimits, type ProofLimits, type ProofStore, type ProofVerdict } from '../state/proofs.js';
import type { Link } from './connection.js';

// KEYS: the principal's set, the set of all. ARGV: now, jti, until, the whole member, maxProofsPerPrincipal, maxTotalProofs.
const REMEMBER = `
local now, jti, untilMs = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZSCORE', KEYS[1], jti) then return 'replayed' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 'maxProofsPerPrincipal' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'maxTotalProofs' end
redis.call('ZADD', KEYS[1], untilMs, jti)
redis.call('ZADD', KEYS[2], untilMs, ARGV[4])
for i = 1, 2 do
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[i], math.floor(tonumber(last[2])) + 1)
end
return 'fresh'`;

export class RedisProofs implements ProofStore {
  readonly #limits: ProofLimits;

  constructor(
    private readonly link: Link,
    limits: Partial<ProofLimits> = {},
  ) {
    this.#limits = proofLimits(limits);
  }

  async remember(principal: string, jti: string, until: number): Promise<ProofVerdict> {
    const { prefix, commands } = this.link;
    // Length-prefixed, so no principal can be made to run into the jti.
    const member = `${principal.length}:${principal}${jti}`;
    const args = [Date.now(), jti, until, member, this.#limits.maxProofsPerPrincipal, this.#limits.maxTotalProofs].map(String);
    const verdict = await commands.eval(REMEMBER, { keys: [`${prefix}dpop:${principal}`, `${prefix}dpop-all`], arguments: args });
    return String(verdict) as ProofVerdict;
  }
}
