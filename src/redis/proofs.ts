/**
 * DPoP proof ids in Redis, so a proof replayed on another instance is refused too. One script per
 * proof keeps the bounds across instances in one step, with the memory store's fair sharing
 * (proofRefusal in state/proofs.ts, written here once more in Lua). The ids are the bounds ledger in
 * its timed form (ledger-lua.ts: they leave by time alone, so the sorted sets are the counts):
 *
 *   dpop-ledger:<principal>  sorted set: that principal's proof ids, scored by when they may leave
 *   dpop-ledger              sorted set: every kept id (principal and jti), for maxTotalProofs
 *   dpop-ledger-holders      sorted set: each principal holding ids, scored by when its last id leaves
 *
 * Ids whose time passed leave by score range (in order, never a walk); each key expires with its last id.
 */
import { proofLimits, proofShares, type ProofLimits, type ProofShares, type ProofStore, type ProofVerdict } from '../state/proofs.js';
import type { Link } from './connection.js';
import { TIMED_LEDGER_LUA } from './ledger-lua.js';

// ARGV: prefix, now, principal, jti, until, maxProofsPerPrincipal, maxTotalProofs, reserve, floor.
const REMEMBER = `
local P, now, W, jti, untilMs = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
local perPrincipal, total, reserve, floor = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
${TIMED_LEDGER_LUA}
timed_sweep('dpop', W, now)
if timed_has('dpop', W, jti) then return 'replayed' end
local mine = timed_of('dpop', W)
if mine >= perPrincipal then return 'maxProofsPerPrincipal' end
local kept = timed_of('dpop')
if kept >= total then return 'maxTotalProofs' end
if mine >= floor then
  local shared = total - reserve
  local holders = math.max(1, timed_principals('dpop'))
  if kept >= shared or mine >= math.floor(shared / holders) then return 'maxTotalProofs' end
end
timed_add('dpop', W, jti, untilMs)
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
    const { maxProofsPerPrincipal, maxTotalProofs } = this.#limits;
    const args = [prefix, Date.now(), principal, jti, until, maxProofsPerPrincipal, maxTotalProofs, this.#shares.reserve, this.#shares.floor].map(String);
    return String(await commands.eval(REMEMBER, { arguments: args })) as ProofVerdict;
  }
}
