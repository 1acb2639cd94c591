/**
 * DPoP proof ids in Redis, so a proof replayed on another instance is refused too. One script per
 * proof keeps the bounds across instances in one step, with the memory store's fair sharing
 * (proofRefusal in state/proofs.ts, written here once more in Lua):
 *
 *   dpop:<principal>   sorted set: that principal's proof ids, scored by when they may leave
 *   dpop-all           sorted set: every kept id (principal and jti), for maxTotalProofs
 *   dpop-holders       sorted set: each principal holding ids, scored by when its last id leaves
 *
 * Ids whose time passed leave by score range (in order, never a walk); each key expires with its last id.
 */
import { proofLimits, proofShares, type ProofLimits, type ProofShares, type ProofStore, type ProofVerdict } from '../state/proofs.js';
import type { Link } from './connection.js';

// KEYS: the principal's set, the set of all, the holders. ARGV: now, jti, until, the whole member, the
// principal, maxProofsPerPrincipal, maxTotalProofs, reserve, floor.
const REMEMBER = `
local now, jti, untilMs = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local perPrincipal, total, reserve, floor = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
for i = 1, 3 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now) end
if redis.call('ZSCORE', KEYS[1], jti) then return 'replayed' end
local mine = redis.call('ZCARD', KEYS[1])
if mine >= perPrincipal then return 'maxProofsPerPrincipal' end
local kept = redis.call('ZCARD', KEYS[2])
if kept >= total then return 'maxTotalProofs' end
if mine >= floor then
  local shared = total - reserve
  local holders = math.max(1, redis.call('ZCARD', KEYS[3]))
  if kept >= shared or mine >= math.floor(shared / holders) then return 'maxTotalProofs' end
end
redis.call('ZADD', KEYS[1], untilMs, jti)
redis.call('ZADD', KEYS[2], untilMs, ARGV[4])
local holds = redis.call('ZSCORE', KEYS[3], ARGV[5])
if not holds or tonumber(holds) < untilMs then redis.call('ZADD', KEYS[3], untilMs, ARGV[5]) end
for i = 1, 3 do
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[i], math.floor(tonumber(last[2])) + 1)
end
return 'fresh'`;

export class RedisProofs implements ProofStore {
  readonly #limits: ProofLimits;
  readonly #shares: ProofShares;

  constructor(
    private readonly link: Link,
    limits: Partial<ProofLimits> = {},
  ) {
    this.#limits = proofLimits(limits);
    this.#shares = proofShares(this.#limits);
  }

  async remember(principal: string, jti: string, until: number): Promise<ProofVerdict> {
    const { prefix, commands } = this.link;
    // Length-prefixed, so no principal can be made to run into the jti.
    const member = `${principal.length}:${principal}${jti}`;
    const { maxProofsPerPrincipal, maxTotalProofs } = this.#limits;
    const args = [Date.now(), jti, until, member, principal, maxProofsPerPrincipal, maxTotalProofs, this.#shares.reserve, this.#shares.floor].map(String);
    const keys = [`${prefix}dpop:${principal}`, `${prefix}dpop-all`, `${prefix}dpop-holders`];
    return String(await commands.eval(REMEMBER, { keys, arguments: args })) as ProofVerdict;
  }
}
