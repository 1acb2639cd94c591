/**
 * Webhook subscription records on Redis, so a subscription made on one instance is served by any
 * (and outlives the instance that made it): the record `<prefix>evsub:<id>` (JSON, expiring with the
 * grant, or never for a no-expiry subscription), an index per event type `<prefix>evsubt:<name>`, per principal `<prefix>evsubp:<principal>`
 * and over all `<prefix>evsub-all` (sorted sets scored by expiry, so expired members are dropped
 * before a bound is counted). A put is one script: a refresh always passes, a new record only within
 * the bounds.
 */
import type { PutOutcome, SubscriptionBounds, SubscriptionRecord, SubscriptionStore } from '../state/event-subscriptions.js';
import type { Link } from './connection.js';

// KEYS: record, type index, principal index, all. ARGV: id, json, expiresAt ('' = never), now, perPrincipal, total.
const PUT = `
local expires = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[4])
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[5]) then return 'principal' end
  if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) then return 'total' end
end
if expires then redis.call('SET', KEYS[1], ARGV[2], 'PXAT', expires) else redis.call('SET', KEYS[1], ARGV[2]) end
for i = 2, 4 do
  local ttl = redis.call('PEXPIRETIME', KEYS[i]) -- before the ZADD: -2 no index yet, -1 one that never expires
  redis.call('ZADD', KEYS[i], expires or '+inf', ARGV[1])
  if not expires then redis.call('PERSIST', KEYS[i])
  elseif ttl ~= -1 then redis.call('PEXPIREAT', KEYS[i], math.max(expires, ttl)) end
end
return 'stored'`;

// KEYS: record, all. ARGV: prefix, id.
const DELETE = `
local json = redis.call('GET', KEYS[1])
if not json then return 0 end
local record = cjson.decode(json)
redis.call('DEL', KEYS[1])
redis.call('ZREM', ARGV[1] .. 'evsubt:' .. record.name, ARGV[2])
redis.call('ZREM', ARGV[1] .. 'evsubp:' .. record.principal, ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1`;

export class RedisSubscriptionStore implements SubscriptionStore {
  /** Records live in Redis, past any instance's restart: no-expiry subscriptions are granted. */
  readonly durable = true;

  constructor(private readonly link: Link) {}

  #key(kind: string, name = ''): string {
    return `${this.link.prefix}${kind}${name}`;
  }

  async get(id: string): Promise<SubscriptionRecord | undefined> {
    const json = await this.link.commands.get(this.#key('evsub:', id));
    return json === null ? undefined : (JSON.parse(json) as SubscriptionRecord);
  }

  async put(record: SubscriptionRecord, bounds: SubscriptionBounds): Promise<PutOutcome> {
    const keys = [this.#key('evsub:', record.id), this.#key('evsubt:', record.name), this.#key('evsubp:', record.principal), this.#key('evsub-all')];
    const args = [record.id, JSON.stringify(record), record.expiresAt ?? '', Date.now(), bounds.perPrincipal, bounds.total];
    return (await this.link.commands.eval(PUT, { keys, arguments: args.map(String) })) as PutOutcome;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.link.commands.eval(DELETE, { keys: [this.#key('evsub:', id), this.#key('evsub-all')], arguments: [this.link.prefix, id] });
    return deleted === 1;
  }

  async ofType(name: string): Promise<SubscriptionRecord[]> {
    const index = this.#key('evsubt:', name);
    const ids = await this.link.commands.zRangeByScore(index, Date.now(), '+inf');
    if (ids.length === 0) return [];
    const found = await this.link.commands.mGet(ids.map((id) => this.#key('evsub:', id)));
    return found.filter((json): json is string => json !== null).map((json) => JSON.parse(json) as SubscriptionRecord);
  }
}
