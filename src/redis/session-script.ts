import { ledgerLua } from './ledger-lua.js';

/**
 * The one Lua script behind every 2025 session write on Redis, so the bounds (SessionLimits) are
 * counted and kept in one step across instances. Besides `<prefix>sess:<id>` (level) and
 * `<prefix>subs:<id>` (URIs), it keeps what it needs to count:
 *
 *   sessions              sorted set: every session with state, scored by when it expires
 *   session-size          hash: <id>:n, <id>:b, <id>:p (its subscriptions, their characters, its principal)
 *   psessions:<p>         sorted set: principal p's sessions, scored by expiry (oldest first)
 *   subs-ledger[:<p>]     the bounds ledger of subscriptions (ledger-lua.ts): count, size in all and per named p
 *
 * A session whose TTL passed is forgotten (its counts given back) by the next write, up to 100 at a time.
 *
 * ARGV: prefix, now, session, principal, ttl ms, level ('' none), op ('sub' | 'unsub' | ''), uri,
 * then maxSessions, maxSessionsPerPrincipal, maxSubscriptions, maxSubscriptionChars,
 * maxSubscriptionsPerPrincipal, maxSubscriptionCharsPerPrincipal, maxTotalSubscriptions,
 * maxTotalSubscriptionChars. Returns 'ok', or the name of the bound that refused the write.
 */
export const SESSION_UPDATE = `
local P, NOW, S, W, TTL = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
${ledgerLua()}
local LEVEL, OP, U = ARGV[6], ARGV[7], ARGV[8]
local MAX = {}
for i, name in ipairs({ 'maxSessions', 'maxSessionsPerPrincipal', 'maxSubscriptions', 'maxSubscriptionChars',
  'maxSubscriptionsPerPrincipal', 'maxSubscriptionCharsPerPrincipal', 'maxTotalSubscriptions', 'maxTotalSubscriptionChars' }) do
  MAX[name] = tonumber(ARGV[8 + i])
end
local ALL, SIZE = P .. 'sessions', P .. 'session-size'
local function mine(p) return P .. 'psessions:' .. p end
local function num(v) return tonumber(v or '0') or 0 end
-- Adds n subscriptions of b characters to the session's counts and to the ledger (its principal's and the server's).
local function add(id, p, n, b)
  for field, by in pairs({ n = n, b = b }) do
    if by ~= 0 then redis.call('HINCRBY', SIZE, id .. ':' .. field, by) end
  end
  ledger_add('subs', p, n, b)
end
local function forget(id)
  local f = redis.call('HMGET', SIZE, id .. ':n', id .. ':b', id .. ':p')
  local p = f[3] or ''
  add(id, p, -num(f[1]), -num(f[2]))
  redis.call('HDEL', SIZE, id .. ':n', id .. ':b', id .. ':p')
  redis.call('ZREM', ALL, id)
  redis.call('ZREM', mine(p), id)
  redis.call('DEL', P .. 'sess:' .. id, P .. 'subs:' .. id)
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', ALL, '-inf', NOW, 'LIMIT', 0, 100)) do forget(id) end

if not redis.call('ZSCORE', ALL, S) then
  local full = W ~= '' and redis.call('ZCARD', mine(W)) >= MAX.maxSessionsPerPrincipal
  if full or redis.call('ZCARD', ALL) >= MAX.maxSessions then
    local own = redis.call('ZRANGE', mine(W), 0, 0)
    if #own == 0 then return 'maxSessions' end
    forget(own[1])
  end
  redis.call('HSET', SIZE, S .. ':p', W)
end

local subs = P .. 'subs:' .. S
if OP == 'sub' and redis.call('SISMEMBER', subs, U) == 0 then
  local size = #U
  local s = redis.call('HMGET', SIZE, S .. ':n', S .. ':b')
  local rows = { { num(s[1]), 1, 'maxSubscriptions' }, { num(s[2]), size, 'maxSubscriptionChars' } }
  if W ~= '' then
    local n, b = ledger_of('subs', W)
    rows[#rows + 1] = { n, 1, 'maxSubscriptionsPerPrincipal' }
    rows[#rows + 1] = { b, size, 'maxSubscriptionCharsPerPrincipal' }
  end
  local n, b = ledger_of('subs')
  rows[#rows + 1] = { n, 1, 'maxTotalSubscriptions' }
  rows[#rows + 1] = { b, size, 'maxTotalSubscriptionChars' }
  for _, row in ipairs(rows) do
    if row[1] + row[2] > MAX[row[3]] then return row[3] end
  end
  redis.call('SADD', subs, U)
  add(S, W, 1, size)
elseif OP == 'unsub' and redis.call('SREM', subs, U) == 1 then
  add(S, W, -1, -#U)
end
if LEVEL ~= '' then redis.call('HSET', P .. 'sess:' .. S, 'level', LEVEL) end
redis.call('ZADD', ALL, NOW + TTL, S)
redis.call('ZADD', mine(W), NOW + TTL, S)
for _, k in ipairs({ P .. 'sess:' .. S, subs, mine(W), ledger_key('subs', W) }) do redis.call('PEXPIRE', k, TTL) end
return 'ok'`;
