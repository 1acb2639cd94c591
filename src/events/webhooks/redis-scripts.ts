/**
 * The Lua scripts of the Redis delivery store: each step that must be atomic across instances.
 *
 * Keys under the prefix P: `P job:<key>` the job (JSON, with its callback `host`), `P due:<host>` a
 * sorted set of one host's job keys by due time (ms), `P hosts` the hosts by their earliest due time
 * (a claim takes round-robin across due hosts: a slow host's backlog holds up another for one turn),
 * `P done:<key>` a finished key kept `dedupMs`, `P use` a hash of pending counts and bytes
 * (`c:<principal>`, `b:<principal>`, `c*`, `b*`), `P sub:<sid>` the keys of one subscription,
 * `P parked:<sid>` the keys of a suspended subscription, `P suspended` the suspended subscriptions,
 * `P st:<sid>` its health. A job key is `<sid>\0<webhookId>`.
 */

/**
 * `P hosts` scores a host by when it is next eligible: its earliest due job, or, once served, no
 * earlier than that claim. Hosts with older scores come first, so a served host goes behind the
 * others (round-robin), and a new job never moves a host later.
 */
const HOSTS = `
local function offer(p, host, t)
  local current = redis.call('ZSCORE', p..'hosts', host)
  if not current or tonumber(t) < tonumber(current) then redis.call('ZADD', p..'hosts', t, host) end
end
local function drop(p, host)
  if redis.call('ZCARD', p..'due:'..host) == 0 then redis.call('ZREM', p..'hosts', host) end
end
`;

/** ARGV: prefix, key, sid, job JSON, principal, bytes, now, perPrincipal, bytesPerPrincipal, total, bytesTotal, host. */
export const ADD = `${HOSTS}
local p, key, sid = ARGV[1], ARGV[2], ARGV[3]
if redis.call('EXISTS', p..'job:'..key) == 1 or redis.call('EXISTS', p..'done:'..key) == 1 then return 'duplicate' end
local use, principal, bytes = p..'use', ARGV[5], tonumber(ARGV[6])
local count = tonumber(redis.call('HGET', use, 'c:'..principal) or '0')
local size = tonumber(redis.call('HGET', use, 'b:'..principal) or '0')
local all = tonumber(redis.call('HGET', use, 'c*') or '0')
local allSize = tonumber(redis.call('HGET', use, 'b*') or '0')
if count + 1 > tonumber(ARGV[8]) or size + bytes > tonumber(ARGV[9]) then return 'limit' end
if all + 1 > tonumber(ARGV[10]) or allSize + bytes > tonumber(ARGV[11]) then return 'limit' end
redis.call('SET', p..'job:'..key, ARGV[4])
redis.call('ZADD', p..'due:'..ARGV[12], ARGV[7], key)
offer(p, ARGV[12], ARGV[7])
redis.call('SADD', p..'sub:'..sid, key)
redis.call('HINCRBY', use, 'c:'..principal, 1)
redis.call('HINCRBY', use, 'b:'..principal, bytes)
redis.call('HINCRBY', use, 'c*', 1)
redis.call('HINCRBY', use, 'b*', bytes)
return 'queued'
`;

/**
 * ARGV: prefix, now, leaseMs, max. Due jobs, each pushed `leaseMs` into the future (the claim: no other
 * instance sees it until then; if this one dies, it is due again). A suspended subscription's jobs are parked.
 */
export const CLAIM = `${HOSTS}
local p, now, lease, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local hosts = redis.call('ZRANGEBYSCORE', p..'hosts', '-inf', now, 'LIMIT', 0, max)
local out, served = {}, {}
local progress = true
while #out < max and progress do
  progress = false
  for _, host in ipairs(hosts) do
    if #out >= max then break end
    local due = p..'due:'..host
    local key = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 1)[1]
    served[host] = served[host] or false
    if key then
      progress = true
      local job = redis.call('GET', p..'job:'..key)
      local sid = string.sub(key, 1, string.find(key, '\\0', 1, true) - 1)
      if not job then
        redis.call('ZREM', due, key)
      elseif redis.call('SISMEMBER', p..'suspended', sid) == 1 then
        redis.call('ZREM', due, key)
        redis.call('SADD', p..'parked:'..sid, key)
      else
        redis.call('ZADD', due, now + lease, key)
        out[#out + 1] = job
        served[host] = true
      end
    end
  end
end
for host, took in pairs(served) do
  local first = redis.call('ZRANGE', p..'due:'..host, 0, 0, 'WITHSCORES')
  if not first[1] then redis.call('ZREM', p..'hosts', host)
  elseif took then redis.call('ZADD', p..'hosts', math.max(tonumber(first[2]), now), host)
  else redis.call('ZADD', p..'hosts', first[2], host) end
end
return out
`;

/** ARGV: prefix, key, sid, principal, bytes, dedupMs, host. Removes a pending job once (a second finish changes nothing). */
export const FINISH = `${HOSTS}
local p, key, sid, principal, bytes = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if redis.call('DEL', p..'job:'..key) == 0 then return 0 end
redis.call('ZREM', p..'due:'..ARGV[7], key)
drop(p, ARGV[7])
redis.call('SREM', p..'sub:'..sid, key)
redis.call('SET', p..'done:'..key, '1', 'PX', ARGV[6])
local use = p..'use'
if redis.call('HINCRBY', use, 'c:'..principal, -1) <= 0 then redis.call('HDEL', use, 'c:'..principal) end
if redis.call('HINCRBY', use, 'b:'..principal, -bytes) <= 0 then redis.call('HDEL', use, 'b:'..principal) end
redis.call('HINCRBY', use, 'c*', -1)
redis.call('HINCRBY', use, 'b*', -bytes)
return 1
`;

/** ARGV: prefix, key, job JSON, at, host. A failed attempt: the job (with its count) is due again at `at`. */
export const RETRY = `${HOSTS}
local p, key = ARGV[1], ARGV[2]
if redis.call('EXISTS', p..'job:'..key) == 0 then return 0 end
redis.call('SET', p..'job:'..key, ARGV[3])
redis.call('ZADD', p..'due:'..ARGV[5], ARGV[4], key)
offer(p, ARGV[5], ARGV[4])
return 1
`;

/**
 * ARGV: prefix, sid, now, failure ('' for success), windowMs ('' when suspension is off), minAttempts,
 * failureRate, ttlMs. The rolling failure rate in twelve buckets (health.ts, the same rule); 1 when
 * this attempt suspended the subscription.
 */
export const RECORD = `
local p, sid, now, failure = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local key = p..'st:'..sid
local raw = redis.call('GET', key)
local h = raw and cjson.decode(raw) or { d = false, e = false, f = false, s = false, b = {} }
if failure == '' then h.d = now; h.e = false; h.f = false else h.e = failure; if not h.f then h.f = now end end
local suspended = 0
if ARGV[5] ~= '' then
  local bucket = math.floor(now / (tonumber(ARGV[5]) / 12))
  local slot = tostring(bucket % 12)
  local row = h.b[slot]
  local failed = failure ~= '' and 1 or 0
  if not row or row[1] ~= bucket then h.b[slot] = { bucket, 1, failed } else row[2] = row[2] + 1; row[3] = row[3] + failed end
  local attempts, failures = 0, 0
  for _, r in pairs(h.b) do if r[1] > bucket - 12 then attempts = attempts + r[2]; failures = failures + r[3] end end
  if not h.s and attempts >= tonumber(ARGV[6]) and failures / attempts > tonumber(ARGV[7]) then
    h.s = true
    suspended = 1
    redis.call('SADD', p..'suspended', sid)
  end
end
redis.call('SET', key, cjson.encode(h), 'PX', ARGV[8])
return suspended
`;

/** ARGV: prefix, sid, now. Un-suspends; parked jobs are due now, their retry window restarted. */
export const REACTIVATE = `${HOSTS}
local p, sid = ARGV[1], ARGV[2]
redis.call('SREM', p..'suspended', sid)
local key = p..'st:'..sid
local raw = redis.call('GET', key)
if raw then
  local h = cjson.decode(raw)
  h.s = false
  h.b = {}
  redis.call('SET', key, cjson.encode(h), 'KEEPTTL')
end
for _, key in ipairs(redis.call('SMEMBERS', p..'parked:'..sid)) do
  local raw = redis.call('GET', p..'job:'..key)
  if raw then
    local job = cjson.decode(raw)
    job.since = tonumber(ARGV[3]) -- time spent suspended does not use up the retry window
    redis.call('SET', p..'job:'..key, cjson.encode(job))
    redis.call('ZADD', p..'due:'..job.host, ARGV[3], key)
    offer(p, job.host, ARGV[3])
  end
end
redis.call('DEL', p..'parked:'..sid)
return 1
`;

/** ARGV: prefix, sid. Drops the subscription's pending jobs (freeing their bounds) and its health. */
export const FORGET = `${HOSTS}
local p, sid = ARGV[1], ARGV[2]
local use = p..'use'
for _, key in ipairs(redis.call('SMEMBERS', p..'sub:'..sid)) do
  local raw = redis.call('GET', p..'job:'..key)
  if raw then
    local job = cjson.decode(raw)
    local principal, bytes = job.target.principal, job.bytes
    redis.call('DEL', p..'job:'..key)
    redis.call('ZREM', p..'due:'..job.host, key)
    drop(p, job.host)
    if redis.call('HINCRBY', use, 'c:'..principal, -1) <= 0 then redis.call('HDEL', use, 'c:'..principal) end
    if redis.call('HINCRBY', use, 'b:'..principal, -bytes) <= 0 then redis.call('HDEL', use, 'b:'..principal) end
    redis.call('HINCRBY', use, 'c*', -1)
    redis.call('HINCRBY', use, 'b*', -bytes)
  end
end
redis.call('DEL', p..'sub:'..sid, p..'parked:'..sid, p..'st:'..sid)
redis.call('SREM', p..'suspended', sid)
return 1
`;

/** ARGV: prefix, host key, windowMs, max. One verification POST to a host in the current window; 0 when full. */
export const SLOT = `
local key = ARGV[1]..'vslot:'..ARGV[2]
local n = redis.call('INCR', key)
if n == 1 then redis.call('PEXPIRE', key, ARGV[3]) end
return n <= tonumber(ARGV[4]) and 1 or 0
`;
