import { ledgerLua } from './ledger-lua.js';

/**
 * The Lua scripts behind the Redis task store: every read-check-write of a task runs in one script,
 * so a status move is compare-and-set on every instance at once, and the per-principal cap counts
 * and creates in one step. Records are never decoded in Lua (cjson would turn `[]` into `{}`): the
 * task hash keeps the result, the error and each input as JSON text, and a snapshot is a JSON object
 * of those strings, decoded by the store.
 *
 * ARGV of every script but `take`: prefix, now (epoch ms), now (ISO 8601), then the script's own.
 */

/**
 * Helpers shared by the scripts. Keys are built from the prefix (standalone Redis or Valkey, not Cluster).
 * What tasks keep is counted in the bounds ledger's shape (ledger-lua.ts; anonymous is one principal, as
 * in memory): `tasks-ledger[:<p>]`, tasks (count) and their results' characters (size); beside each task,
 * `task-kept` holds what giving it back needs (`<id>` its size, `<id>:p` its principal) and
 * `tasks-expiry` scores it by expiry for the sweep.
 */
const PRELUDE = `
local P, NOW, ISO = ARGV[1], tonumber(ARGV[2]), ARGV[3]
${ledgerLua(true)}
local KEPT, EXPIRY = P .. 'task-kept', P .. 'tasks-expiry'
local TERMINAL = { completed = true, failed = true, cancelled = true }
local LOST = 'The task was lost: the server instance running it stopped.'
local function tkey(id) return P .. 'task:' .. id end
local function hash(k)
  local flat, t = redis.call('HGETALL', k), {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end
local function snap(id)
  local t = hash(tkey(id))
  t['in'] = hash(tkey(id) .. ':in')
  t['out'] = hash(tkey(id) .. ':out')
  return cjson.encode(t)
end
local function publish(id)
  redis.call('HSET', tkey(id), 'lastUpdatedAt', ISO)
  redis.call('PUBLISH', P .. 'tasks', id .. '\\n' .. snap(id))
end
local function ended(id, principal)
  redis.call('DEL', tkey(id) .. ':in', tkey(id) .. ':out')
  redis.call('ZREM', P .. 'tasks-live:' .. principal, id)
end
local function keepFor(k, ms)
  local left = redis.call('PTTL', k)
  if left < ms then redis.call('PEXPIRE', k, ms) end
end
-- The task's status (nil when gone). A live task whose owner's lease ran out fails here: never working forever.
local function check(id)
  local f = redis.call('HMGET', tkey(id), 'status', 'owner', 'principal')
  if not f[1] then return nil end
  if TERMINAL[f[1]] or redis.call('EXISTS', P .. 'task-owner:' .. f[2]) == 1 then return f[1] end
  redis.call('HSET', tkey(id), 'status', 'failed', 'statusMessage', LOST, 'error', cjson.encode({ code = -32603, message = LOST }))
  ended(id, f[3])
  publish(id)
  return 'failed'
end
-- As check, but nil for another principal's task: it is unknown to them.
local function mine(id, principal)
  if redis.call('HGET', tkey(id), 'principal') ~= principal then return nil end
  return check(id)
end
-- Forgets up to 100 expired tasks: each gives back its place and its result's characters to the ledger
-- (its principal's and in all). Returns how many it forgot.
local function sweepAll()
  local expired = redis.call('ZRANGEBYSCORE', EXPIRY, '-inf', NOW, 'LIMIT', 0, 100)
  for _, id in ipairs(expired) do
    local f = redis.call('HMGET', KEPT, id, id .. ':p')
    if f[2] then ledger_add('tasks', f[2], -1, -ledger_num(f[1])) end
    redis.call('HDEL', KEPT, id, id .. ':p')
    redis.call('ZREM', EXPIRY, id)
  end
  return #expired
end
-- The principal's live tasks, dropping ended and expired ones from the set.
local function countLive(principal)
  local live = P .. 'tasks-live:' .. principal
  redis.call('ZREMRANGEBYSCORE', live, '-inf', NOW)
  local n = 0
  for _, id in ipairs(redis.call('ZRANGE', live, 0, -1)) do
    local s = check(id)
    if s == nil or TERMINAL[s] then redis.call('ZREM', live, id) else n = n + 1 end
  end
  return n
end
`;

const script = (body: string): string => `${PRELUDE}\n${body}`;

export const SCRIPTS = {
  /**
   * id, principal, owner, doc, status, ttl ms, expiresAt, cap (0: none), lastUpdatedAt, maxTasks (0: none)
   * → 1; 0 when the principal keeps `cap` tasks (finished ones too, until they expire); 'maxTasks' when the server keeps that many.
   */
  create: script(`
local id, principal, owner, doc, status = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local px, expiresAt, cap, maxTasks = tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11]), tonumber(ARGV[13] or '0')
sweepAll()
local function overMine() return cap > 0 and (ledger_of('tasks', principal)) >= cap end
local function overAll() return maxTasks > 0 and (ledger_of('tasks')) >= maxTasks end
ledger_settle(overMine, sweepAll)
if overMine() then return 0 end
ledger_settle(overAll, sweepAll)
if overAll() then return 'maxTasks' end
redis.call('ZADD', EXPIRY, expiresAt, id)
if redis.call('HSETNX', KEPT, id .. ':p', principal) == 1 then ledger_add('tasks', principal, 1, 0) end
local k = tkey(id)
redis.call('HSET', k, 'doc', doc, 'principal', principal, 'owner', owner, 'status', status, 'lastUpdatedAt', ARGV[12])
redis.call('PEXPIRE', k, px)
for _, set in ipairs({ P .. 'tasks-live:' .. principal, P .. 'tasks-of:' .. principal }) do
  redis.call('ZREMRANGEBYSCORE', set, '-inf', NOW)
  redis.call('ZADD', set, expiresAt, id)
  keepFor(set, px)
end
return 1`),

  /** principal → the number of live tasks. */
  live: script(`return countLive(ARGV[4])`),

  /** id, principal → the snapshot, or nil when unknown to this principal. */
  get: script(`
if not mine(ARGV[4], ARGV[5]) then return false end
return snap(ARGV[4])`),

  /** principal, cursor ('' for the first page), limit → snapshots, then '1' when more follow or '0'; nil for a bad cursor. */
  list: script(`
local all, cursor, limit = P .. 'tasks-of:' .. ARGV[4], ARGV[5], tonumber(ARGV[6])
redis.call('ZREMRANGEBYSCORE', all, '-inf', NOW)
local start = 0
if cursor ~= '' then
  local rank = redis.call('ZRANK', all, cursor)
  if not rank then return false end
  start = rank + 1
end
local ids, out = redis.call('ZRANGE', all, start, start + limit), {}
for i = 1, math.min(#ids, limit) do
  if check(ids[i]) then out[#out + 1] = snap(ids[i]) end
end
out[#out + 1] = (#ids > limit) and '1' or '0'
return out`),

  /** id, statusMessage: while not terminal. */
  note: script(`
local s = check(ARGV[4])
if not s or TERMINAL[s] then return 0 end
redis.call('HSET', tkey(ARGV[4]), 'statusMessage', ARGV[5])
publish(ARGV[4])
return 1`),

  /** id, then key/request-JSON pairs: the task becomes input_required. */
  ask: script(`
local id = ARGV[4]
local s = check(id)
if not s or TERMINAL[s] then return 0 end
for i = 5, #ARGV, 2 do redis.call('HSET', tkey(id) .. ':in', ARGV[i], ARGV[i + 1]) end
keepFor(tkey(id) .. ':in', redis.call('PTTL', tkey(id)))
redis.call('HSET', tkey(id), 'status', 'input_required')
publish(id)
return 1`),

  /** id, principal, then key/answer-JSON pairs: answers to outstanding keys only; working again when none is left. */
  answer: script(`
local id, principal = ARGV[4], ARGV[5]
local s = mine(id, principal)
if not s or TERMINAL[s] then return 0 end
local inputs, answers = tkey(id) .. ':in', tkey(id) .. ':out'
for i = 6, #ARGV, 2 do
  if redis.call('HDEL', inputs, ARGV[i]) == 1 then redis.call('HSET', answers, ARGV[i], ARGV[i + 1]) end
end
if redis.call('EXISTS', answers) == 1 then keepFor(answers, redis.call('PTTL', tkey(id))) end
if redis.call('HLEN', inputs) == 0 then redis.call('HSET', tkey(id), 'status', 'working') end
publish(id)
return 1`),

  /**
   * id, size (characters of result and error), maxStoredCharsPerPrincipal, maxStoredChars (0: none), then
   * field/value pairs of the end (status, statusMessage, result, error): only from a live status. 1 when
   * kept, 0 when already terminal, or the name of the byte bound it would pass (nothing written).
   */
  settle: script(`
local id, size, maxMine, maxAll = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local s = check(id)
if not s or TERMINAL[s] then return 0 end
local principal = redis.call('HGET', tkey(id), 'principal')
sweepAll()
local function overMine() local _, used = ledger_of('tasks', principal) return maxMine > 0 and used + size > maxMine end
local function overAll() local _, used = ledger_of('tasks') return maxAll > 0 and used + size > maxAll end
ledger_settle(overMine, sweepAll)
if overMine() then return 'maxStoredCharsPerPrincipal' end
ledger_settle(overAll, sweepAll)
if overAll() then return 'maxStoredChars' end
for i = 8, #ARGV, 2 do redis.call('HSET', tkey(id), ARGV[i], ARGV[i + 1]) end
-- Counted only for a task its create counted (one the sweep will give back).
if size > 0 and redis.call('HEXISTS', KEPT, id .. ':p') == 1 then
  redis.call('HSET', KEPT, id, size)
  ledger_add('tasks', principal, 0, size)
end
ended(id, principal)
publish(id)
return 1`),

  /** id, principal, reason → { outcome, snapshot }. */
  cancel: script(`
local id, principal = ARGV[4], ARGV[5]
local s = mine(id, principal)
if not s then return { 'unknown' } end
if TERMINAL[s] then return { 'terminal', snap(id) } end
redis.call('HSET', tkey(id), 'status', 'cancelled', 'statusMessage', ARGV[6], 'cancel', '1')
ended(id, principal)
publish(id)
return { 'cancelled', snap(id) }`),

  /** prefix, id, key → the answer JSON (removed), or nil. No prelude: it reads nothing else. */
  take: `
local k = ARGV[1] .. 'task:' .. ARGV[2] .. ':out'
local value = redis.call('HGET', k, ARGV[3])
if value then redis.call('HDEL', k, ARGV[3]) end
return value`,
} as const;

export type ScriptName = keyof typeof SCRIPTS;
