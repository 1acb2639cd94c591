/**
 * 2025 SSE resumption over Redis: a stream's events are a list `<prefix>rp:<streamId>` of
 * `<seq>\n<frame>` entries (trimmed to the newest maxEvents), its owner `<prefix>rpo:<streamId>`,
 * and its end `<prefix>rpd:<streamId>`; each event is also published on `<prefix>rpc:<streamId>` for
 * a GET following the stream live on another instance. The follower subscribes first, then reads the
 * list, and drops what it already wrote (by sequence number): nothing is missed or written twice.
 * Commands go out in order on one connection, so the list keeps the stream's order. A stream is
 * opened when its response begins (which shows no event id before Redis acknowledged the owner:
 * `opened`) and each event is pushed before it is written to the client, so a
 * resume on another instance, even one that overtakes the disconnect, finds the owner and the events.
 * Kept streams count against their principal (`<prefix>rpp:<principal>`, a sorted set): past the
 * bound its oldest is dropped. The characters a stream keeps are counted in `<prefix>rpz:<streamId>`:
 * past `maxChars` its oldest events go (an event larger than that is never kept, see
 * replay-frames.ts), and past `maxCharsPerPrincipal` over the principal's streams (or `maxTotalChars`
 * over all, counted in `<prefix>rp-chars`), the writer's own oldest streams, then events, go: never
 * another principal's.
 */
import { shrinkFrame } from '../state/replay-frames.js';
import { parseEventId, type ReplayCursor, type ReplayStore, type ReplayWriter, type StreamReader } from '../state/replay.js';
import { ACKNOWLEDGE_WAIT_MS, HEARTBEAT_MS, waitAtMost, type Link } from './connection.js';

export interface ReplayLimits {
  ttlMs: number;
  maxIdleMs: number;
  maxEvents: number;
  /** Streams kept at once for one named principal; past it, that principal's oldest is dropped. */
  maxStreamsPerPrincipal: number;
  /** Characters kept per stream (its entries); a larger event is never kept. */
  maxChars: number;
  /** Characters kept over one named principal's streams; past it, its own oldest streams, then events, go. */
  maxCharsPerPrincipal: number;
  /** Characters kept over all streams; past it, the writer's own oldest streams, then events, go. */
  maxTotalChars: number;
}

const END = '\u0000end';

// Forgets a kept stream: its keys go, its characters leave the total, and a GET following it is ended.
// Needs P (the prefix) and MARK (the end mark). The total is `<prefix>rp-chars`, each stream's share in
// the hash `<prefix>rp-sizes`, and `<prefix>rp-all` scores each stream by when its keys expire.
const GONE = `local function gone(s)
  local size = tonumber(redis.call('HGET', P .. 'rp-sizes', s) or '0')
  if size ~= 0 then redis.call('DECRBY', P .. 'rp-chars', size) end
  redis.call('HDEL', P .. 'rp-sizes', s) redis.call('ZREM', P .. 'rp-all', s)
  redis.call('DEL', P .. 'rp:' .. s, P .. 'rpo:' .. s, P .. 'rpd:' .. s, P .. 'rpz:' .. s)
  redis.call('PUBLISH', P .. 'rpc:' .. s, MARK)
end`;

// Appends an event, unless the stream was dropped (its owner key is gone): a dropped stream stays dropped.
// Then the bounds: the stream's events and characters; then (a named principal's) characters over its
// streams and the characters of all streams: the writer's own oldest streams go first, then this
// stream's oldest events. Streams whose keys expired give their characters back first.
// KEYS: list, owner, channel, size, the principal's set (or the list again). ARGV: entry, maxEvents,
// maxIdleMs, maxChars, maxCharsPerPrincipal (0: anonymous), prefix, streamId, the end mark, maxTotalChars, now.
const PUSH = `local P, MARK, id, now = ARGV[6], ARGV[8], ARGV[7], tonumber(ARGV[10])
${GONE}
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
for _, s in ipairs(redis.call('ZRANGEBYSCORE', P .. 'rp-all', '-inf', now, 'LIMIT', 0, 100)) do gone(s) end
local list, size, maxEvents = KEYS[1], KEYS[4], tonumber(ARGV[2])
local function shed(limit)
  local c = tonumber(redis.call('GET', size) or '0')
  while redis.call('LLEN', list) > 0 and (c > limit or redis.call('LLEN', list) > maxEvents) do c = c - #redis.call('LPOP', list) end
  redis.call('SET', size, c)
  local delta = c - tonumber(redis.call('HGET', P .. 'rp-sizes', id) or '0')
  if delta ~= 0 then redis.call('INCRBY', P .. 'rp-chars', delta) end
  redis.call('HSET', P .. 'rp-sizes', id, c)
  return c
end
redis.call('RPUSH', list, ARGV[1]) redis.call('INCRBY', size, #ARGV[1])
local own = shed(tonumber(ARGV[4]))
redis.call('ZADD', P .. 'rp-all', now + tonumber(ARGV[3]), id)
local maxMine, maxAll = tonumber(ARGV[5]), tonumber(ARGV[9])
local streams, sizes, mine = {}, {}, 0
if maxMine > 0 then streams = redis.call('ZRANGE', KEYS[5], 0, -1) end
for i, s in ipairs(streams) do sizes[i] = tonumber(redis.call('GET', P .. 'rpz:' .. s) or '0') mine = mine + sizes[i] end
local function excess()
  local all = tonumber(redis.call('GET', P .. 'rp-chars') or '0') - maxAll
  return math.max(all, maxMine > 0 and mine - maxMine or 0)
end
for i, s in ipairs(streams) do
  if excess() <= 0 then break end
  if s ~= id then
    mine = mine - sizes[i]
    redis.call('ZREM', KEYS[5], s)
    gone(s)
  end
end
if excess() > 0 then shed(own - excess()) end
for _, k in ipairs({ list, KEYS[2], size }) do redis.call('PEXPIRE', k, ARGV[3]) end
return redis.call('PUBLISH', KEYS[3], ARGV[1])`;

// Counts a kept stream against its principal (a sorted set by time) and drops that principal's oldest
// past the bound. KEYS: the set. ARGV: streamId, now, maxIdleMs, bound, prefix, the end mark.
const HOLD = `local P, MARK = ARGV[5], ARGV[6]
${GONE}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1]) redis.call('PEXPIRE', KEYS[1], ARGV[3])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if over <= 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if over <= 0 then break end
  if id ~= ARGV[1] then
    redis.call('ZREM', KEYS[1], id) over = over - 1
    gone(id)
  end
end
return 1`;

class RedisReplayWriter implements ReplayWriter {
  /** The owner key is in Redis (the commands before it too: one connection, in order). */
  readonly opened: Promise<void>;
  #seq: number;
  /** The principal's set of kept streams; undefined for anonymous ones (only their own bounds apply). */
  readonly #held: string | undefined;

  constructor(private readonly store: RedisReplay, private readonly streamId: string, owner: string, nextSeq: number, principal: string) {
    this.#seq = nextSeq - 1;
    const { link, limits } = store;
    const owned = link.commands.set(store.key('rpo', streamId), link.instanceId + owner, { PX: limits.maxIdleMs });
    owned.catch((error: unknown) => link.failed('replay', error));
    this.opened = waitAtMost(owned, ACKNOWLEDGE_WAIT_MS);
    if (principal === '') return;
    const held = (this.#held = `${link.prefix}rpp:${principal.length}:${principal}`);
    const args = [streamId, String(Date.now()), String(limits.maxIdleMs), String(limits.maxStreamsPerPrincipal), link.prefix, END];
    link.commands.eval(HOLD, { keys: [held], arguments: args }).catch((error: unknown) => link.failed('replay', error));
  }

  push(frame: string): void {
    const { link, limits } = this.store;
    const id = this.streamId;
    const kept = frame.length <= limits.maxChars ? frame : shrinkFrame(frame, limits.maxChars);
    const entry = `${++this.#seq}\n${kept}`;
    const list = this.store.key('rp', id);
    const keys = [list, this.store.key('rpo', id), this.store.key('rpc', id), this.store.key('rpz', id), this.#held ?? list];
    const perPrincipal = this.#held === undefined ? 0 : limits.maxCharsPerPrincipal;
    const args = [entry, limits.maxEvents, limits.maxIdleMs, limits.maxChars, perPrincipal, link.prefix, id, END, limits.maxTotalChars, Date.now()].map(String);
    link.commands.eval(PUSH, { keys, arguments: args }).catch((error: unknown) => link.failed('replay', error));
  }

  end(keepMs?: number): void {
    const { link, limits } = this.store;
    const id = this.streamId;
    const ttl = Math.min(keepMs ?? Infinity, limits.ttlMs);
    link.commands.multi()
      .set(this.store.key('rpd', id), '1', { PX: ttl }).pExpire(this.store.key('rp', id), ttl).pExpire(this.store.key('rpo', id), ttl)
      .pExpire(this.store.key('rpz', id), ttl).zAdd(`${link.prefix}rp-all`, { score: Date.now() + ttl, value: id })
      .publish(this.store.key('rpc', id), END)
      .exec().catch((error: unknown) => link.failed('replay', error));
  }
}

/** `<seq>\n<frame>` split; undefined for anything else. */
function entryOf(entry: string): { seq: number; frame: string } | undefined {
  const nl = entry.indexOf('\n');
  const seq = Number(entry.slice(0, nl));
  return nl > 0 && Number.isInteger(seq) ? { seq, frame: entry.slice(nl + 1) } : undefined;
}

export class RedisReplay implements ReplayStore {
  constructor(readonly link: Link, readonly limits: ReplayLimits) {}

  key(kind: 'rp' | 'rpo' | 'rpd' | 'rpc' | 'rpz', streamId: string): string {
    return `${this.link.prefix}${kind}:${streamId}`;
  }

  open(streamId: string, owner: string, nextSeq: number, principal = ''): ReplayWriter {
    return new RedisReplayWriter(this, streamId, owner, nextSeq, principal);
  }

  async resume(lastEventId: string, owner: string): Promise<ReplayCursor | undefined> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) return undefined;
    const { streamId, seq } = parsed;
    const redis = this.link.commands;
    const [kept, entries, done] = await Promise.all([
      redis.get(this.key('rpo', streamId)), redis.lRange(this.key('rp', streamId), 0, -1), redis.get(this.key('rpd', streamId)),
    ]);
    // The owner key holds the writing instance's id (16 characters), then the owner.
    if (kept === null || kept.slice(16) !== owner) return undefined;
    const writer = kept.slice(0, 16);
    const after = entries.map(entryOf).filter((e) => e !== undefined && e.seq > seq) as { seq: number; frame: string }[];
    const last = after.at(-1)?.seq ?? seq;
    return { missed: after.map((e) => e.frame), done: done !== null, follow: (reader) => this.#follow(streamId, writer, last, reader) };
  }

  /** Live frames after `written`, then the end; also the end when the writing instance is gone (killed: it will write no more). */
  #follow(streamId: string, writer: string, written: number, reader: StreamReader): () => void {
    const channel = this.key('rpc', streamId);
    let open = true;
    const watch = setInterval(() => {
      const gone = async () => !(await this.link.alive(writer)) && (await this.#drain(streamId, take));
      gone().catch(() => {}); // Redis away: keep waiting
    }, HEARTBEAT_MS);
    (watch as { unref?: () => void }).unref?.();
    const stop = (): void => {
      if (!open) return;
      open = false;
      clearInterval(watch);
      this.link.subscriber.unsubscribe(channel, onMessage).catch(() => {});
    };
    const take = (entry: string): void => {
      if (!open) return;
      if (entry === END) {
        stop();
        return reader.end();
      }
      const parsed = entryOf(entry);
      if (parsed === undefined || parsed.seq <= written) return;
      written = parsed.seq;
      reader.write(parsed.frame);
    };
    // Live entries wait until the read after subscribing is done: one published meanwhile may be newer
    // than entries that read still brings, which must go first (each is written once, in order).
    let held: string[] | undefined = [];
    const onMessage = (message: string): void => void (held === undefined ? take(message) : held.push(message));
    const release = (): void => {
      const waiting = held ?? [];
      held = undefined;
      for (const message of waiting) take(message);
    };
    // What came between the first read and the subscription: read again, drop what was written.
    this.link.subscriber.subscribe(channel, onMessage).then(() => this.#drain(streamId, take, false)).then(release).catch((error: unknown) => {
      this.link.failed('replay follow', error);
      stop();
      reader.end();
    });
    return stop;
  }

  /** Hands the stream's kept entries to `take`, then the end if it is over (or `always`). */
  async #drain(streamId: string, take: (entry: string) => void, always = true): Promise<void> {
    const [entries, done] = await Promise.all([this.link.commands.lRange(this.key('rp', streamId), 0, -1), this.link.commands.get(this.key('rpd', streamId))]);
    for (const entry of entries) take(entry);
    if (always || done !== null) take(END);
  }
}
