/**
 * 2025 session state in Redis: `<prefix>sess:<id>` (a hash: the log level), `<prefix>subs:<id>` (a
 * set of subscribed URIs) and `<prefix>get:<id>` (who holds the session's GET stream). Every write
 * renews the TTL, so a session lives `sessionTtlMs` after its last change; a GET claim lives a
 * minute and is renewed by the stream's keep-alives, so a dead instance's claim runs out by itself.
 */
import type { LoggingLevel } from '../types.js';
import type { SessionPatch, SessionState, SessionStore } from '../state/sessions.js';
import type { Link } from './connection.js';

const CLAIM_MS = 60_000;
const MAX_SUBSCRIPTIONS = 1_000;
// Gives the claim back only if it is still ours.
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
// Takes a free claim, or renews our own.
const CLAIM = "local v = redis.call('GET', KEYS[1]) if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 else return 0 end";

export class RedisSessions implements SessionStore {
  constructor(private readonly link: Link, private readonly ttlMs: number) {}

  #key(kind: 'sess' | 'subs' | 'get', session: string): string {
    return `${this.link.prefix}${kind}:${session}`;
  }

  async get(session: string): Promise<SessionState | undefined> {
    const redis = this.link.commands;
    const [level, subscriptions] = await Promise.all([redis.hGet(this.#key('sess', session), 'level'), redis.sMembers(this.#key('subs', session))]);
    if (level == null && subscriptions.length === 0) return undefined;
    return { logLevel: (level ?? undefined) as LoggingLevel | undefined, subscriptions };
  }

  async update(session: string, patch: SessionPatch): Promise<void> {
    const redis = this.link.commands;
    const sess = this.#key('sess', session);
    const subs = this.#key('subs', session);
    const tx = redis.multi();
    if (patch.logLevel !== undefined) tx.hSet(sess, 'level', patch.logLevel);
    if (patch.subscribe !== undefined) tx.sAdd(subs, patch.subscribe);
    if (patch.unsubscribe !== undefined) tx.sRem(subs, patch.unsubscribe);
    tx.pExpire(sess, this.ttlMs).pExpire(subs, this.ttlMs).sCard(subs);
    const replies = await tx.exec();
    if (patch.subscribe !== undefined && Number(replies.at(-1)) > MAX_SUBSCRIPTIONS) {
      await redis.sRem(subs, patch.subscribe);
      throw new RangeError(`A session may hold at most ${MAX_SUBSCRIPTIONS} subscriptions`);
    }
  }

  async claimStream(session: string, holder: string): Promise<boolean> {
    const taken = await this.link.commands.eval(CLAIM, { keys: [this.#key('get', session)], arguments: [holder, String(CLAIM_MS)] });
    return Number(taken) === 1;
  }

  releaseStream(session: string, holder: string): void {
    this.link.commands.eval(RELEASE, { keys: [this.#key('get', session)], arguments: [holder] })
      .catch((error: unknown) => this.link.failed('session stream release', error));
  }
}
