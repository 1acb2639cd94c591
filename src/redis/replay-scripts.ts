/**
 * The Lua scripts behind the Redis replay store's bounds (replay.ts). Besides a stream's own keys
 * (`rp:`, `rpo:`, `rpd:`, channel `rpc:`), they keep what the bounds count:
 *
 *   rp-kept          hash: <stream> the characters it keeps, <stream>:p its principal (what giving it back needs)
 *   rp-expiry        sorted set: every kept stream, scored by when its keys expire (the sweep)
 *   rp-open:<n>:<p>  sorted set: named principal p's streams in open order (its oldest go first)
 *   rp-ledger[:<p>]  the bounds ledger (ledger-lua.ts): streams (count) and characters (size), in all and per named p
 *
 * Every script first forgets up to 100 streams whose keys expired; a bound that would drop a stream
 * sweeps on until it is read exactly. Every script defines P (the prefix), NOW and MARK (the end mark).
 */
import { ledgerLua } from './ledger-lua.js';

// Forgets a stream (dropped, or its keys expired): its counts leave the ledger, its keys go, and a GET
// following it is ended. An id not kept (already forgotten) gives nothing back.
const FORGET = `${ledgerLua()}
local SIZES, ALL = P .. 'rp-kept', P .. 'rp-expiry'
local function held(p) return P .. 'rp-open:' .. #p .. ':' .. p end
local function gone(s)
  local f = redis.call('HMGET', SIZES, s, s .. ':p')
  if f[2] then
    ledger_add('rp', f[2], -1, -ledger_num(f[1]))
    if f[2] ~= '' then redis.call('ZREM', held(f[2]), s) end
  end
  redis.call('HDEL', SIZES, s, s .. ':p') redis.call('ZREM', ALL, s)
  redis.call('DEL', P .. 'rp:' .. s, P .. 'rpo:' .. s, P .. 'rpd:' .. s)
  redis.call('PUBLISH', P .. 'rpc:' .. s, MARK)
end
local function sweep()
  local expired = redis.call('ZRANGEBYSCORE', ALL, '-inf', NOW, 'LIMIT', 0, 100)
  for _, s in ipairs(expired) do gone(s) end
  return #expired
end`;

/**
 * Opens a stream: its owner key, and its place in the ledger (a named principal's also in its open
 * order: past maxStreamsPerPrincipal its oldest other stream is dropped). An id opened twice: the
 * newer stream replaces it. ARGV: prefix, streamId, owner value, now, maxIdleMs, principal,
 * maxStreamsPerPrincipal, the end mark. Returns 1.
 */
export const REPLAY_OPEN = `local P, id, NOW, idle, W, MARK = ARGV[1], ARGV[2], tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], ARGV[8]
${FORGET}
if redis.call('HEXISTS', SIZES, id .. ':p') == 1 then gone(id) end
sweep()
redis.call('SET', P .. 'rpo:' .. id, ARGV[3], 'PX', idle)
redis.call('ZADD', ALL, NOW + idle, id)
redis.call('HSET', SIZES, id .. ':p', W)
ledger_add('rp', W, 1, 0)
if W == '' then return 1 end
local mine, max = held(W), tonumber(ARGV[7])
redis.call('ZADD', mine, NOW, id)
local function over() return (ledger_of('rp', W)) > max end
ledger_settle(over, sweep)
for _, s in ipairs(redis.call('ZRANGE', mine, 0, -1)) do
  if not over() then break end
  if s ~= id then gone(s) end
end
return 1`;

/**
 * Appends an event, unless the stream was dropped (its owner key is gone, checked after the sweep,
 * which may forget this very stream): a dropped stream stays dropped. Then the bounds: the stream's events and characters; then a named principal's characters
 * over its streams and the characters of all streams: the writer's own oldest streams go first, then
 * this stream's oldest events. ARGV: entry, maxEvents, maxIdleMs, maxChars, maxCharsPerPrincipal,
 * prefix, streamId, the end mark, maxTotalChars, now, principal. Returns what PUBLISH returns (0 when dropped).
 */
export const REPLAY_PUSH = `local P, MARK, id, NOW, W = ARGV[6], ARGV[8], ARGV[7], tonumber(ARGV[10]), ARGV[11]
${FORGET}
local list, owner = P .. 'rp:' .. id, P .. 'rpo:' .. id
sweep()
if redis.call('EXISTS', owner) == 0 then return 0 end
local maxEvents, idle, maxMine, maxAll = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[5]), tonumber(ARGV[9])
-- The stream keeps c characters: the ledger learns the difference.
local function resize(c)
  local delta = c - ledger_num(redis.call('HGET', SIZES, id))
  if delta ~= 0 then
    redis.call('HSET', SIZES, id, c)
    ledger_add('rp', W, 0, delta)
  end
  return c
end
local function shed(limit)
  local c = ledger_num(redis.call('HGET', SIZES, id))
  while redis.call('LLEN', list) > 0 and (c > limit or redis.call('LLEN', list) > maxEvents) do c = c - #redis.call('LPOP', list) end
  return resize(c)
end
redis.call('RPUSH', list, ARGV[1])
resize(ledger_num(redis.call('HGET', SIZES, id)) + #ARGV[1])
local own = shed(tonumber(ARGV[4]))
redis.call('ZADD', ALL, NOW + tonumber(idle), id)
local function excess()
  local _, all = ledger_of('rp')
  local _, mine = ledger_of('rp', W)
  return math.max(all - maxAll, W ~= '' and mine - maxMine or 0)
end
ledger_settle(function() return excess() > 0 end, sweep)
if W ~= '' and excess() > 0 then
  for _, s in ipairs(redis.call('ZRANGE', held(W), 0, -1)) do
    if excess() <= 0 then break end
    if s ~= id then gone(s) end
  end
end
if excess() > 0 then shed(own - excess()) end
for _, k in ipairs({ list, owner }) do redis.call('PEXPIRE', k, idle) end
return redis.call('PUBLISH', P .. 'rpc:' .. id, ARGV[1])`;
