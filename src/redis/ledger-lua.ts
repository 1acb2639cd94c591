/**
 * The bounds ledger (src/state/ledger.ts) in Redis, for the Lua scripts that count what clients keep:
 * `<prefix><kind>-ledger` holds the totals and `<prefix><kind>-ledger:<principal>` one named
 * principal's, each a hash with the same two fields as the memory ledger: `count` and `size`.
 * Anonymous ('') counts only in the total. Prepended to a script that defines `P` (the prefix).
 */
export const LEDGER_LUA = `
local function ledger_key(kind, p) if p == nil then return P .. kind .. '-ledger' end return P .. kind .. '-ledger:' .. p end
-- count, size of a named principal (nil: the total); 0, 0 for anonymous, which has no share.
local function ledger_of(kind, p)
  if p == '' then return 0, 0 end
  local v = redis.call('HMGET', ledger_key(kind, p), 'count', 'size')
  return tonumber(v[1] or '0') or 0, tonumber(v[2] or '0') or 0
end
-- Adds n things of s size for p and in all (a Lua -0 is no integer to HINCRBY: zeros are skipped).
local function ledger_add(kind, p, n, s)
  for field, by in pairs({ count = n, size = s }) do
    if by ~= 0 then
      redis.call('HINCRBY', ledger_key(kind), field, by)
      if p ~= '' then redis.call('HINCRBY', ledger_key(kind, p), field, by) end
    end
  end
end
`;
