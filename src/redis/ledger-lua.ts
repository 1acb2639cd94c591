/**
 * The bounds ledger (src/state/ledger.ts) in Redis, for the Lua scripts that count what clients keep:
 * `<prefix><kind>-ledger` holds the totals and `<prefix><kind>-ledger:<principal>` one principal's,
 * each a hash with the same two fields as the memory ledger: `count` and `size`. As in memory,
 * anonymous ('') counts only in the total, unless the ledger is made with `anonymousIsOne` (then
 * its key is `<prefix><kind>-ledger:`), and a principal at zero is forgotten (its key deleted).
 * A store keeps beside each entry what giving it back needs (its size and principal) and sweeps
 * its expired entries by an index scored by expiry: `ledger_settle` reads a bound exactly.
 * The text is prepended to a script that defines `P` (the prefix).
 */
export function ledgerLua(anonymousIsOne = false): string {
  return `
local LEDGER_ANONYMOUS_IS_ONE = ${anonymousIsOne}
local function ledger_key(kind, p) if p == nil then return P .. kind .. '-ledger' end return P .. kind .. '-ledger:' .. p end
local function ledger_num(v) return tonumber(v or '0') or 0 end
-- count, size of principal p (nil: the total); 0, 0 for anonymous when it has no share.
local function ledger_of(kind, p)
  if p == '' and not LEDGER_ANONYMOUS_IS_ONE then return 0, 0 end
  local v = redis.call('HMGET', ledger_key(kind, p), 'count', 'size')
  return ledger_num(v[1]), ledger_num(v[2])
end
-- Adds n things of s size for p and in all (a Lua -0 is no integer to HINCRBY: zeros are skipped).
local function ledger_add(kind, p, n, s)
  local named = p ~= '' or LEDGER_ANONYMOUS_IS_ONE
  for field, by in pairs({ count = n, size = s }) do
    if by ~= 0 then
      redis.call('HINCRBY', ledger_key(kind), field, by)
      if named then redis.call('HINCRBY', ledger_key(kind, p), field, by) end
    end
  end
  if named and (n < 0 or s < 0) then
    local count, size = ledger_of(kind, p)
    if count == 0 and size == 0 then redis.call('DEL', ledger_key(kind, p)) end
  end
end
-- While over() (a bound would refuse), sweep() gives back one batch of expired entries (it returns how
-- many): each write sweeps one batch, and a refusal is never owed to an expired entry not yet swept.
local function ledger_settle(over, sweep)
  while over() and sweep() > 0 do end
end
`;
}

/**
 * The same ledger, same names, for a store whose entries leave by time alone and are never given back
 * by a write (DPoP proof ids): `<prefix><kind>-ledger` and `<prefix><kind>-ledger:<principal>` are
 * sorted sets of the entries themselves (in all, members `<length>:<principal><id>`; per principal,
 * `<id>`), scored by when each leaves, and `<prefix><kind>-ledger-holders` scores each principal by when
 * its last entry leaves (the memory ledger's `principals`). Anonymous is one principal. A count is a
 * set's size once the passed entries are cut by score (exact, no sweep to owe), and every key expires
 * with its last entry, so nothing needs giving back: a hash of counts here would only repeat the sets'
 * sizes, and would need them anyway to learn what expired. Entries are counted, not sized: their
 * size is bounded where they are made. The text is prepended to a script that defines `P`.
 */
export const TIMED_LEDGER_LUA = `
local function timed_key(kind, p) if p == nil then return P .. kind .. '-ledger' end return P .. kind .. '-ledger:' .. p end
local function timed_holders(kind) return P .. kind .. '-ledger-holders' end
-- Cuts the entries (in all, of p) and the holders whose time passed.
local function timed_sweep(kind, p, now)
  for _, k in ipairs({ timed_key(kind), timed_key(kind, p), timed_holders(kind) }) do redis.call('ZREMRANGEBYSCORE', k, '-inf', now) end
end
-- The count of p's entries (nil: in all), after timed_sweep.
local function timed_of(kind, p) return redis.call('ZCARD', timed_key(kind, p)) end
local function timed_principals(kind) return redis.call('ZCARD', timed_holders(kind)) end
local function timed_has(kind, p, id) return redis.call('ZSCORE', timed_key(kind, p), id) ~= false end
-- Keeps p's entry id until untilMs; each key expires with its last entry.
local function timed_add(kind, p, id, untilMs)
  redis.call('ZADD', timed_key(kind, p), untilMs, id)
  redis.call('ZADD', timed_key(kind), untilMs, #p .. ':' .. p .. id)
  local holds = redis.call('ZSCORE', timed_holders(kind), p)
  if not holds or tonumber(holds) < untilMs then redis.call('ZADD', timed_holders(kind), untilMs, p) end
  for _, k in ipairs({ timed_key(kind), timed_key(kind, p), timed_holders(kind) }) do
    local last = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
    redis.call('PEXPIREAT', k, math.floor(tonumber(last[2])) + 1)
  end
end
`;
