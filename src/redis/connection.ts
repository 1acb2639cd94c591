/**
 * The Redis connections one instance uses: one for commands, one for pub/sub (a subscribed Redis
 * connection can do nothing else). Commands fail at once while Redis is away (no offline queue, so
 * nothing buffers without bound and a request that needs state gets a prompt -32603); the client
 * reconnects by itself. Failures are counted and logged once per outage, never thrown at the process.
 */
import type { createClient } from 'redis';
import type { SessionLimits } from '../state/session-limits.js';
import type { ProofLimits } from '../state/proofs.js';

export type RedisClient = ReturnType<typeof createClient>;

/** Every instance renews `<prefix>live:<instanceId>` this often; three missed beats and it counts as gone. */
export const HEARTBEAT_MS = 2_000;

export interface RedisStateOptions {
  /** A node-redis client (connected or not) to share; or give `url`. */
  client?: RedisClient;
  /** redis:// or rediss:// URL. Default: the REDIS_URL environment variable (also when `url` is undefined). */
  url?: string | undefined;
  /** Every key and channel starts with it, so several servers can share one Redis. Default 'mcp:'. */
  prefix?: string;
  /** How long a 2025 session's state lives after its last change. Default 24 h. */
  sessionTtlMs?: number;
  /** Bounds on 2025 session state (subscriptions and sessions, per session, per principal, in all); defaults as in memory (docs/security.md). */
  sessionLimits?: Partial<SessionLimits>;
  /** How long a finished 2025 SSE stream stays resumable; a running one is kept while it writes, up to `streamMaxIdleMs`. Default 30 s. */
  replayTtlMs?: number;
  /** A running 2025 SSE stream with no event for this long is forgotten. Default 1 h. */
  streamMaxIdleMs?: number;
  /** Events kept per stream (the oldest dropped first). Default 1,000. */
  maxEventsPerStream?: number;
  /** Resumable streams kept at once for one named principal (its oldest dropped first), as in memory. Default 100. */
  maxStreamsPerPrincipal?: number;
  /** Characters of events kept per resumable stream (oldest dropped first; a larger event is never kept), as in memory. Default 1 MiB. */
  maxCharsPerStream?: number;
  /** Characters of events kept over one named principal's resumable streams (its own oldest streams, then events, go), as in memory. Default 8 MiB. */
  maxCharsPerPrincipal?: number;
  /** Characters of events kept over all resumable streams in this Redis (the writer's own oldest streams, then events, go), as in memory. Default 64 MiB. */
  maxTotalReplayChars?: number;
  /** Bounds on the DPoP proof ids kept for minimcp/auth's replay check (per principal, in all); defaults as in memory. */
  proofLimits?: Partial<ProofLimits>;
  /** How long the start may wait for Redis. Default 5 s. */
  connectTimeoutMs?: number;
  /** Where Redis failures are reported (once per outage). Default: stderr. */
  onError?: (error: unknown) => void;
}

export interface Link {
  readonly prefix: string;
  readonly commands: RedisClient;
  readonly subscriber: RedisClient;
  /** A random id for this instance: answers are routed to it. */
  readonly instanceId: string;
  /** A command failed (Redis away): counted, logged once until Redis is back. */
  failed(what: string, error: unknown): void;
  readonly stats: { lostFanOut: number; failures: number };
  /** Subscribes `channel` on the pub/sub connection; each message arrives parsed as JSON (anything else is not ours and is dropped). */
  listen<T>(channel: string, onMessage: (message: T) => void): Promise<void>;
  /** Whether that instance still beats (a killed one stops; its claims and streams can be let go). Rejects while Redis is away. */
  alive(instanceId: string): Promise<boolean>;
}

export async function connect(options: RedisStateOptions): Promise<{ link: Link; close(): Promise<void> }> {
  const url = options.url ?? process.env.REDIS_URL;
  if (options.client === undefined && !url) throw new TypeError('minimcp/redis: give a node-redis client or a URL (or set REDIS_URL)');
  const { createClient } = await import('redis');
  const ours = options.client === undefined;
  const commands: RedisClient = options.client ?? createClient({ url, disableOfflineQueue: true });
  const subscriber: RedisClient = commands.duplicate({ disableOfflineQueue: true });
  const onError = options.onError ?? ((error: unknown) => console.error('[minimcp/redis]', error instanceof Error ? error.message : error));
  let down = false;
  const stats = { lostFanOut: 0, failures: 0 };
  const report = (error: unknown): void => {
    if (!down) onError(error);
    down = true;
  };
  for (const client of [commands, subscriber]) {
    client.on('error', report); // without a listener, the client would throw on the process
    client.on('ready', () => (down = false));
  }
  const timeoutMs = options.connectTimeoutMs ?? 5_000;
  try {
    await withTimeout(Promise.all([commands.isOpen ? undefined : commands.connect(), subscriber.connect()]), timeoutMs);
  } catch (error) {
    for (const client of ours ? [commands, subscriber] : [subscriber]) client.destroy();
    const where = url ?? 'the given client';
    throw new Error(`minimcp/redis: cannot reach Redis at ${where} within ${timeoutMs} ms (${error instanceof Error ? error.message : String(error)})`);
  }
  const prefix = options.prefix ?? 'mcp:';
  const instanceId = crypto.randomUUID().replace(/-/g, '').slice(0, 16);
  const live = (id: string) => `${prefix}live:${id}`;
  const stopBeating = await heartbeat(commands, live(instanceId));
  const link: Link = {
    prefix,
    commands,
    subscriber,
    instanceId,
    alive: async (id) => (await commands.exists(live(id))) > 0,
    stats,
    failed(what, error) {
      stats.failures++;
      if (what === 'fan-out') stats.lostFanOut++;
      report(new Error(`${what} failed: ${error instanceof Error ? error.message : String(error)}`));
    },
    listen: (channel, onMessage) => subscriber.subscribe(channel, (text) => {
      const message = parseObject(text);
      if (message !== undefined) onMessage(message as Parameters<typeof onMessage>[0]);
    }),
  };
  return {
    link,
    async close() {
      await stopBeating();
      for (const client of ours ? [subscriber, commands] : [subscriber]) {
        if (client.isOpen) await client.close().catch(() => client.destroy());
      }
    },
  };
}

/** Renews `key` every HEARTBEAT_MS (it lives three beats); resolves, once set, with the function that stops and deletes it. */
async function heartbeat(commands: RedisClient, key: string): Promise<() => Promise<void>> {
  const beat = () => commands.set(key, '1', { PX: 3 * HEARTBEAT_MS }).catch(() => {}); // an outage is reported by what needed Redis
  await beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  (timer as { unref?: () => void }).unref?.();
  return async () => {
    clearInterval(timer);
    if (commands.isReady) await commands.del(key).catch(() => {});
  };
}

/** A JSON object, or undefined for anything else (not ours). */
function parseObject(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How long work waits at most for Redis to acknowledge what it must have first (a request's
 * publishes before its answer, a stream's owner before its first event id goes out).
 */
export const ACKNOWLEDGE_WAIT_MS = 2_000;

/** Settles when `work` settles (either way) or after `ms`, whichever comes first: a Redis that stops answering holds nothing back for long. */
export function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  return withTimeout(work, ms).then(() => {}, () => {});
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
