/**
 * The Redis DeliveryStore: N instances share pending deliveries, delivery health and verified
 * endpoints, so an occurrence is delivered by one of them, not N, and a delivery survives the death
 * of the instance that queued it.
 *
 * Due jobs are kept per callback host and claimed round-robin across hosts, as in memory.
 *
 * Why sorted sets of due times with a lease, and not a Streams consumer group: a delivery needs
 * three things at once: deduplication of the same (subscription, webhookId) enqueued by several
 * instances, a retry at a chosen later time, and recovery from a dead claimer. A sorted set scored by
 * due time gives all three in one structure and one atomic script per step: enqueue is SET-if-absent
 * plus ZADD, a claim moves the score `leaseMs` ahead (hidden from the others; due again if the
 * claimer dies), a retry sets the score to the backoff time. A consumer group gives the claim and
 * XAUTOCLAIM the recovery, but no delayed redelivery and no dedup: both would need this set anyway.
 */
import { createHash } from 'node:crypto';
import type { createClient } from 'redis';
import type { FailureCategory } from './errors.js';
import { hostOf } from './ready-queue.js';
import { ADD, CLAIM, FINISH, FORGET, REACTIVATE, RECORD, RETRY, SLOT } from './redis-scripts.js';
import type { DeliveryStore, Job, PendingLimits, SuspensionPolicy } from './store.js';
import type { DeliveryStatus } from './types.js';

type RedisClient = ReturnType<typeof createClient>;

export interface RedisDeliveryStoreOptions {
  /** A node-redis client to share (not closed by the store); or give `url`. */
  client?: RedisClient;
  /** redis:// URL. Default: REDIS_URL. */
  url?: string | undefined;
  /** Every key starts with it. Default 'mcp:wh:'. */
  prefix?: string;
  /** How long a subscription's health is kept after its last attempt. Default 7 days. */
  healthTtlMs?: number;
}

/** Connects (when given a URL) and resolves with the store. */
export async function redisDeliveryStore(options: RedisDeliveryStoreOptions = {}): Promise<DeliveryStore> {
  let client = options.client;
  const ours = client === undefined;
  if (client === undefined) {
    const url = options.url ?? process.env.REDIS_URL;
    if (!url) throw new TypeError('redisDeliveryStore: give a node-redis client or a URL (or set REDIS_URL)');
    const { createClient } = await import('redis');
    client = createClient({ url, disableOfflineQueue: true });
    client.on('error', () => {}); // failures surface as rejected commands, reported by the engine
    await client.connect();
  }
  return new RedisDeliveryStore(client, options.prefix ?? 'mcp:wh:', options.healthTtlMs ?? 7 * 86_400_000, ours);
}

class RedisDeliveryStore implements DeliveryStore {
  readonly #shas = new Map<string, string>();

  constructor(
    readonly client: RedisClient,
    readonly prefix: string,
    readonly healthTtlMs: number,
    readonly ours: boolean,
  ) {}

  async add(job: Job, limits: PendingLimits, _dedupMs: number): Promise<'queued' | 'duplicate' | 'limit'> {
    const { target } = job;
    const host = hostOf(target.url);
    const args = [redisKey(job), target.subscriptionId, JSON.stringify({ ...job, host }), target.principal, job.bytes, job.since];
    return (await this.#run(ADD, [...args, limits.perPrincipal, limits.bytesPerPrincipal, limits.total, limits.bytesTotal, host])) as 'queued' | 'duplicate' | 'limit';
  }

  async claim(now: number, leaseMs: number, max: number): Promise<Job[]> {
    if (max <= 0) return [];
    const found = (await this.#run(CLAIM, [now, leaseMs, max])) as string[];
    return found.map((text) => JSON.parse(text) as Job);
  }

  async finish(job: Job, dedupMs: number): Promise<void> {
    await this.#run(FINISH, [redisKey(job), job.target.subscriptionId, job.target.principal, job.bytes, Math.max(1, dedupMs), hostOf(job.target.url)]);
  }

  async retry(job: Job, at: number): Promise<void> {
    const host = hostOf(job.target.url);
    await this.#run(RETRY, [redisKey(job), JSON.stringify({ ...job, host }), at, host]);
  }

  async record(subscriptionId: string, now: number, failure: FailureCategory | null, policy: SuspensionPolicy | false): Promise<boolean> {
    const rule = policy === false ? ['', 0, 0] : [policy.windowMs, policy.minAttempts, policy.failureRate];
    return Number(await this.#run(RECORD, [subscriptionId, now, failure ?? '', ...rule, this.healthTtlMs])) === 1;
  }

  async status(subscriptionId: string): Promise<DeliveryStatus | undefined> {
    const raw = await this.client.get(`${this.prefix}st:${subscriptionId}`);
    if (raw === null) return undefined;
    const h = JSON.parse(raw) as { d: number | false; e: FailureCategory | false; f: number | false; s: boolean };
    const status: DeliveryStatus = { active: !h.s, lastDeliveryAt: h.d === false ? null : new Date(h.d).toISOString(), lastError: h.e === false ? null : h.e };
    if (h.f !== false) status.failedSince = new Date(h.f).toISOString();
    return status;
  }

  async reactivate(subscriptionId: string, now: number): Promise<void> {
    await this.#run(REACTIVATE, [subscriptionId, now]);
  }

  async forget(subscriptionId: string): Promise<void> {
    await this.#run(FORGET, [subscriptionId]);
  }

  async isVerified(principal: string, url: string): Promise<boolean> {
    return (await this.client.exists(this.#verifiedKey(principal, url))) === 1;
  }

  async markVerified(principal: string, url: string, until: number | null): Promise<void> {
    const key = this.#verifiedKey(principal, url);
    if (until === null) await this.client.set(key, '1');
    else await this.client.set(key, '1', { PX: Math.max(1, until - Date.now()) });
  }

  async takeVerificationSlot(host: string, now: number, windowMs: number, max: number): Promise<boolean> {
    return Number(await this.#run(SLOT, [`${host}:${Math.floor(now / windowMs)}`, windowMs, max])) === 1;
  }

  async close(): Promise<void> {
    if (this.ours && this.client.isOpen) await this.client.close().catch(() => this.client.destroy());
  }

  /** (principal, url) hashed: a URL may be long, and a key should not carry it in the clear. */
  #verifiedKey(principal: string, url: string): string {
    return `${this.prefix}ver:${createHash('sha256').update(principal).update('\u0000').update(url).digest('base64url')}`;
  }

  /** Runs a script by its hash, loading it on first use and again after a Redis restart (NOSCRIPT). */
  async #run(script: string, args: ReadonlyArray<string | number>): Promise<unknown> {
    const argv = [this.prefix, ...args].map(String);
    const sha = this.#shas.get(script);
    if (sha !== undefined) {
      try {
        return await this.client.evalSha(sha, { arguments: argv });
      } catch (error) {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      }
    }
    const loaded = String(await this.client.scriptLoad(script));
    this.#shas.set(script, loaded);
    return this.client.evalSha(loaded, { arguments: argv });
  }
}

/** The job's key in Redis: the subscription id, a NUL, the webhook id. */
function redisKey(job: Job): string {
  return `${job.target.subscriptionId}\u0000${job.webhookId}`;
}
