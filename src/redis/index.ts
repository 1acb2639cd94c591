/**
 * minimcp/redis: every piece of shared state on Redis (or Valkey), so N instances behind a load
 * balancer with no session affinity behave as one server.
 *
 *   const state = await redisState({ url: process.env.REDIS_URL });
 *   const mcp = new MiniMCP({ name, version, state, requestState: { secret: process.env.MINIMCP_SECRET } });
 *
 * Pub/sub carries fan-out (list_changed, resources/updated), 2025 answers to the waiting instance, and
 * cancels; lists carry SSE replay; sorted sets carry DPoP proof ids (proofs.ts); hashes carry rate-limit buckets (rates.ts); hashes and sets carry 2025 session state; Lua scripts keep tasks
 * (task-store.ts), whose writes are published to every instance. Every key has the prefix
 * and a TTL, except the bounds' bookkeeping, which empties as what it counts expires. The node-redis client (`redis`) is an optional peer dependency: only this subpath needs it.
 */
import type { SharedState } from '../state/index.js';
import { RedisAnswers } from './answers.js';
import { RedisBus } from './bus.js';
import { RedisCancels } from './cancels.js';
import { connect, type RedisClient, type RedisStateOptions } from './connection.js';
import { RedisReplay } from './replay.js';
import { RedisSessions } from './sessions.js';
import { sessionLimits } from '../state/session-limits.js';
import { DEFAULT_EVENT_STORE_LIMITS } from '../state/replay.js';
import { RedisTaskStore } from './task-store.js';
import { RedisProofs } from './proofs.js';
import { RedisRates } from './rates.js';
import { RedisEventLog } from './event-log.js';
import { RedisSubscriptionStore } from './event-subscriptions.js';

export type { RedisClient, RedisStateOptions };

export interface RedisState extends SharedState {
  readonly shared: true;
  /** This instance's id (server request ids carry it, so answers find their way back). */
  readonly instanceId: string;
  /** Redis failures so far, and how many fan-out messages were lost to them. */
  readonly stats: { readonly lostFanOut: number; readonly failures: number };
  /** Closes the connections this state opened (not a client you passed in). */
  close(): Promise<void>;
}

/** Connects (a clear error if Redis cannot be reached in `connectTimeoutMs`) and subscribes; resolves when ready. */
export async function redisState(options: RedisStateOptions = {}): Promise<RedisState> {
  const { link, close } = await connect(options);
  try {
    const bus = new RedisBus(link);
    const answers = new RedisAnswers(link);
    const cancels = new RedisCancels(link);
    const tasks = new RedisTaskStore(link);
    await Promise.all([bus.start(), answers.start(), cancels.start(), tasks.start()]);
    return {
      shared: true,
      instanceId: link.instanceId,
      stats: link.stats,
      bus,
      answers,
      cancels,
      sessions: new RedisSessions(link, options.sessionTtlMs ?? 86_400_000, sessionLimits(options.sessionLimits)),
      replay: new RedisReplay(link, {
        ttlMs: options.replayTtlMs ?? 30_000,
        maxIdleMs: options.streamMaxIdleMs ?? 3_600_000,
        maxEvents: options.maxEventsPerStream ?? 1_000,
        maxStreamsPerPrincipal: options.maxStreamsPerPrincipal ?? 100,
        maxChars: options.maxCharsPerStream ?? DEFAULT_EVENT_STORE_LIMITS.maxChars,
        maxCharsPerPrincipal: options.maxCharsPerPrincipal ?? DEFAULT_EVENT_STORE_LIMITS.maxCharsPerPrincipal,
        maxTotalChars: options.maxTotalReplayChars ?? DEFAULT_EVENT_STORE_LIMITS.maxTotalChars,
      }),
      tasks,
      proofs: new RedisProofs(link, options.proofLimits),
      rates: new RedisRates(link),
      events: new RedisEventLog(link),
      eventSubscriptions: new RedisSubscriptionStore(link),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
