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
 * What streams keep is counted in the bounds ledger's shape (replay-scripts.ts: `<prefix>rp-ledger`,
 * streams and characters in all and per named principal): past `maxStreamsPerPrincipal` a principal's
 * oldest stream is dropped; past `maxChars` a stream's oldest events go (an event larger than that is
 * never kept, see replay-frames.ts), and past `maxCharsPerPrincipal` over the principal's streams (or
 * `maxTotalChars` over all), the writer's own oldest streams, then events, go: never another
 * principal's. A stream gives its share back when it is dropped or its keys expire.
 */
import { shrinkFrame } from '../state/replay-frames.js';
import { parseEventId, type ReplayCursor, type ReplayStore, type ReplayWriter, type StreamReader } from '../state/replay.js';
import { ACKNOWLEDGE_WAIT_MS, HEARTBEAT_MS, waitAtMost, type Link } from './connection.js';
import { REPLAY_OPEN, REPLAY_PUSH } from './replay-scripts.js';

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

class RedisReplayWriter implements ReplayWriter {
  /** The owner key is in Redis (the commands before it too: one connection, in order). */
  readonly opened: Promise<void>;
  #seq: number;

  constructor(private readonly store: RedisReplay, private readonly streamId: string, owner: string, nextSeq: number, private readonly principal: string) {
    this.#seq = nextSeq - 1;
    const { link, limits } = store;
    const args = [link.prefix, streamId, link.instanceId + owner, Date.now(), limits.maxIdleMs, principal, limits.maxStreamsPerPrincipal, END].map(String);
    const owned = link.commands.eval(REPLAY_OPEN, { arguments: args });
    owned.catch((error: unknown) => link.failed('replay', error));
    this.opened = waitAtMost(owned, ACKNOWLEDGE_WAIT_MS);
  }

  push(frame: string): void {
    const { link, limits } = this.store;
    const kept = frame.length <= limits.maxChars ? frame : shrinkFrame(frame, limits.maxChars);
    const entry = `${++this.#seq}\n${kept}`;
    const args = [entry, limits.maxEvents, limits.maxIdleMs, limits.maxChars, limits.maxCharsPerPrincipal, link.prefix, this.streamId, END, limits.maxTotalChars, Date.now(), this.principal];
    link.commands.eval(REPLAY_PUSH, { arguments: args.map(String) }).catch((error: unknown) => link.failed('replay', error));
  }

  end(keepMs?: number): void {
    const { link, limits } = this.store;
    const id = this.streamId;
    const ttl = Math.min(keepMs ?? Infinity, limits.ttlMs);
    link.commands.multi()
      .set(this.store.key('rpd', id), '1', { PX: ttl }).pExpire(this.store.key('rp', id), ttl).pExpire(this.store.key('rpo', id), ttl)
      .zAdd(`${link.prefix}rp-expiry`, { score: Date.now() + ttl, value: id })
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

  key(kind: 'rp' | 'rpo' | 'rpd' | 'rpc', streamId: string): string {
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
