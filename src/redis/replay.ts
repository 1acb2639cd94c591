/**
 * 2025 SSE resumption over Redis: a stream's events are a list `<prefix>rp:<streamId>` of
 * `<seq>\n<frame>` entries (trimmed to the newest maxEvents), its owner `<prefix>rpo:<streamId>`,
 * and its end `<prefix>rpd:<streamId>`; each event is also published on `<prefix>rpc:<streamId>` for
 * a GET following the stream live on another instance. The follower subscribes first, then reads the
 * list, and drops what it already wrote (by sequence number): nothing is missed or written twice.
 * Commands go out in order on one connection, so the list keeps the stream's order.
 */
import { parseEventId, type ReplayCursor, type ReplayStore, type ReplayWriter, type StreamReader } from '../state/replay.js';
import type { Link } from './connection.js';

export interface ReplayLimits {
  ttlMs: number;
  maxIdleMs: number;
  maxEvents: number;
}

const END = '\u0000end';

class RedisReplayWriter implements ReplayWriter {
  #seq: number;

  constructor(private readonly store: RedisReplay, private readonly streamId: string, owner: string, nextSeq: number) {
    this.#seq = nextSeq - 1;
    const { link, limits } = store;
    link.commands.set(store.key('rpo', streamId), owner, { PX: limits.maxIdleMs }).catch((error: unknown) => link.failed('replay', error));
  }

  push(frame: string): void {
    const { link, limits } = this.store;
    const entry = `${++this.#seq}\n${frame}`;
    const list = this.store.key('rp', this.streamId);
    link.commands.multi()
      .rPush(list, entry).lTrim(list, -limits.maxEvents, -1).pExpire(list, limits.maxIdleMs).pExpire(this.store.key('rpo', this.streamId), limits.maxIdleMs)
      .publish(this.store.key('rpc', this.streamId), entry)
      .exec().catch((error: unknown) => link.failed('replay', error));
  }

  end(): void {
    const { link, limits } = this.store;
    const id = this.streamId;
    link.commands.multi()
      .set(this.store.key('rpd', id), '1', { PX: limits.ttlMs }).pExpire(this.store.key('rp', id), limits.ttlMs).pExpire(this.store.key('rpo', id), limits.ttlMs)
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

  open(streamId: string, owner: string, nextSeq: number): ReplayWriter {
    return new RedisReplayWriter(this, streamId, owner, nextSeq);
  }

  async resume(lastEventId: string, owner: string): Promise<ReplayCursor | undefined> {
    const parsed = parseEventId(lastEventId);
    if (parsed === undefined) return undefined;
    const { streamId, seq } = parsed;
    const redis = this.link.commands;
    const [kept, entries, done] = await Promise.all([
      redis.get(this.key('rpo', streamId)), redis.lRange(this.key('rp', streamId), 0, -1), redis.get(this.key('rpd', streamId)),
    ]);
    if (kept !== owner) return undefined;
    const after = entries.map(entryOf).filter((e) => e !== undefined && e.seq > seq) as { seq: number; frame: string }[];
    const last = after.at(-1)?.seq ?? seq;
    return { missed: after.map((e) => e.frame), done: done !== null, follow: (reader) => this.#follow(streamId, last, reader) };
  }

  /** Live frames after `written`, then the end. */
  #follow(streamId: string, written: number, reader: StreamReader): () => void {
    const channel = this.key('rpc', streamId);
    let open = true;
    const stop = (): void => {
      if (!open) return;
      open = false;
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
    const onMessage = (message: string): void => take(message);
    this.link.subscriber.subscribe(channel, onMessage).then(async () => {
      // What came between the first read and the subscription: read again, drop what was written.
      const [entries, done] = await Promise.all([this.link.commands.lRange(this.key('rp', streamId), 0, -1), this.link.commands.get(this.key('rpd', streamId))]);
      for (const entry of entries) take(entry);
      if (done !== null) take(END);
    }).catch((error: unknown) => {
      this.link.failed('replay follow', error);
      stop();
      reader.end();
    });
    return stop;
  }
}
