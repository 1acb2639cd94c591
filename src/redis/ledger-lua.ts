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
