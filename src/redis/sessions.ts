/**
 * 2025 session state in Redis: `<prefix>sess:<id>` (a hash: the log level), `<prefix>subs:<id>` (a
 * set of subscribed URIs) and `<prefix>get:<id>` (who holds the session's GET stream). Every write
 * renews the TTL, so a session lives `sessionTtlMs` after its last change; every write is one script
 * that keeps the bounds of SessionLimits across instances (session-script.ts); a GET claim lives a
 * minute and is renewed by the stream's keep-alives, so a dead instance's claim runs out by itself.
 */
import type { LoggingLevel } from '../protocol/mcp-types.js';
import type { SessionPatch, SessionState, SessionStore } from '../state/sessions.js';
import { sessionBoundError, sessionLimits, type SessionLimits } from '../state/session-limits.js';
import type { Link } from './connection.js';
import { SESSION_UPDATE } from './session-script.js';

const CLAIM_MS = 60_000;
/** The order of the limits in the script's ARGV. */
const SESSION_BOUNDS: readonly (keyof SessionLimits)[] = [
  'maxSessions', 'maxSessionsPerPrincipal', 'maxSubscriptions', 'maxSubscriptionChars',
  'maxSubscriptionsPerPrincipal', 'maxSubscriptionCharsPerPrincipal', 'maxTotalSubscriptions', 'maxTotalSubscriptionChars',
];
// Gives the claim back only if it is still ours.
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
// Takes a free claim, or renews our own.
const CLAIM = "local v = redis.call('GET', KEYS[1]) if v == false or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 else return 0 end";

export class RedisSessions implements SessionStore {
  constructor(
    private readonly link: Link,
    private readonly ttlMs: number,
    private readonly limits: SessionLimits = sessionLimits(),
  ) {}

  #key(kind: 'sess' | 'subs' | 'get', session: string): string {
    return `${this.link.prefix}${kind}:${session}`;
  }

  async get(session: string): Promise<SessionState | undefined> {
    const redis = this.link.commands;
    const [level, subscriptions] = await Promise.all([redis.hGet(this.#key('sess', session), 'level'), redis.sMembers(this.#key('subs', session))]);
    if (level == null && subscriptions.length === 0) return undefined;
    return { logLevel: (level ?? undefined) as LoggingLevel | undefined, subscriptions };
  }

  /** One script checks the bounds and writes (session-script.ts); a refusal keeps nothing. */
  async update(session: string, patch: SessionPatch, principal = ''): Promise<void> {
    const op = patch.subscribe !== undefined ? 'sub' : patch.unsubscribe !== undefined ? 'unsub' : '';
    const limits = this.limits;
    const argv = [this.link.prefix, Date.now(), session, principal, this.ttlMs, patch.logLevel ?? '', op, patch.subscribe ?? patch.unsubscribe ?? ''];
    for (const name of SESSION_BOUNDS) argv.push(limits[name]);
    const outcome = String(await this.link.commands.eval(SESSION_UPDATE, { arguments: argv.map(String) }));
    if (outcome !== 'ok') throw sessionBoundError(limits, outcome as keyof SessionLimits, principal);
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
