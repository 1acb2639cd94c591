/**
 * `events/subscribe` and `events/unsubscribe` (webhook mode), and the fan-out of each emitted
 * occurrence to the subscriptions it matches. The records are the events layer's (key, derived id,
 * TTL, secrets with their rotation grace, bounds); everything that talks to the callback endpoint is
 * the engine's (verification, signing, delivery, retries, egress safety).
 */
import type { Context } from '../context/context.js';
import { hashing } from '../platform/crypto.js';
import { toBase64url } from '../platform/base64url.js';
import { invalidParams } from '../protocol/errors.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { CallbackFailure } from './errors.js';
import type { EventType } from './event-type.js';
import type { LoggedEvent } from '../state/event-log.js';
import { maxAgeOf } from './params.js';
import { occurrenceOf } from './reading.js';
import type { EventService, Subscription } from './service.js';
import type { CursorPosition } from './cursor.js';
import type { StreamHost } from './stream.js';
import type { SubscriptionRecord, SubscriptionStore } from '../state/event-subscriptions.js';
import type { WebhookBounds, WebhookSettings, WebhookTarget } from './webhook-settings.js';

/** A callback URL and the arguments are kept for the subscription's life: both are capped. */
const MAX_URL_CHARS = 2_048;
const MAX_ARGS_CHARS = 8_192;
/** Events a subscribe with a cursor replays to the callback at once; past it the answer says `truncated`. */
const REPLAY_ON_SUBSCRIBE = 1_000;

/** JSON with object keys sorted at every level: equal arguments, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as JsonObject)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The id of a key: stable across refreshes and restarts, never accepted as input. */
export function subscriptionId(principal: string, url: string, name: string, args: JsonObject): string {
  const digest = hashing().sha256(JSON.stringify([principal, url, name, canonicalJson(args)]));
  return `sub_${toBase64url(digest.subarray(0, 18))}`;
}

const targetOf = (record: SubscriptionRecord, now: number): WebhookTarget => ({
  subscriptionId: record.id,
  principal: record.principal,
  url: record.url,
  secrets: record.secrets.filter((s) => s.until === undefined || s.until > now).map((s) => s.secret),
});

export class Webhooks<Scope> {
  constructor(
    private readonly service: EventService<Scope>,
    private readonly settings: WebhookSettings,
    private readonly bounds: WebhookBounds,
    private readonly store: SubscriptionStore,
    private readonly host: StreamHost<Scope>,
  ) {
    service.emitted.add((type, entry) => void this.#fanOut(type, entry).catch((error: unknown) => service.report(error)));
  }

  /** The caller's principal; webhook calls need one (an anonymous caller is Forbidden). */
  #principal(ctx: Context<Scope>, method: string): string {
    const principal = this.host.principalOf(ctx.scope, ctx.auth);
    if (principal === '') throw this.service.errors.forbidden(`${method} needs an authenticated principal`);
    return principal;
  }

  /** The callback URL and secret, checked; -32602 for anything no delivery may use. */
  #delivery(params: JsonObject, needSecret: boolean): { url: string; secret: string } {
    const delivery = params.delivery as JsonObject;
    if (delivery.mode !== undefined && delivery.mode !== 'webhook') throw this.service.errors.unsupported('deliveryMode', String(delivery.mode));
    const { url, secret } = delivery;
    if (typeof url !== 'string' || url.length > MAX_URL_CHARS) throw invalidParams(`delivery.url must be an https URL of at most ${MAX_URL_CHARS} characters`);
    this.#check(() => this.settings.validateUrl(url));
    if (!needSecret) return { url, secret: '' };
    if (typeof secret !== 'string') throw invalidParams('delivery.secret is required: "whsec_" followed by base64 of 24 to 64 bytes');
    this.#check(() => this.settings.validateSecret(secret));
    return { url, secret };
  }

  /** The engine's refusals as this layer's errors: its messages are written for clients. */
  #check(run: () => unknown): void {
    try {
      run();
    } catch (error) {
      throw this.#mapped(error);
    }
  }

  #mapped(error: unknown): unknown {
    const named = error as { name?: string; message?: string; reason?: CallbackFailure; bound?: string };
    if (named?.name === 'WebhookParamsError') return invalidParams(named.message ?? 'Invalid delivery');
    if (named?.name === 'CallbackEndpointError' && named.reason !== undefined) return this.service.errors.callbackFailed(named.reason);
    if (named?.name === 'WebhookBoundError') return this.service.errors.exhausted(named.bound ?? 'verifications', 0);
    return error;
  }

  /**
   * The TTL granted: the default when none is asked, clamped to the bounds. `null` (no expiry) is
   * granted where the records survive restarts (a durable store, Redis); elsewhere it gets the longest.
   */
  #grant(ttlMs: unknown): number | null {
    if (ttlMs === null) return this.store.durable === true ? null : this.bounds.maxTtlMs;
    if (typeof ttlMs !== 'number') return this.bounds.defaultTtlMs;
    return Math.min(Math.max(ttlMs, this.bounds.minTtlMs), this.bounds.maxTtlMs);
  }

  async subscribe(params: JsonObject, ctx: Context<Scope>): Promise<JsonObject> {
    const principal = this.#principal(ctx, 'events/subscribe');
    const subscription = await this.service.resolve(params, 'webhook', ctx);
    const { url, secret } = this.#delivery(params, true);
    if (canonicalJson(subscription.args).length > MAX_ARGS_CHARS) throw invalidParams(`arguments are larger than ${MAX_ARGS_CHARS} characters`);
    const from = this.service.from(subscription.type, params.cursor);
    const id = subscriptionId(principal, url, subscription.type.name, subscription.args);
    const now = Date.now();
    const existing = await this.store.get(id);
    const rotated = existing !== undefined && existing.secrets[0]!.secret !== secret;
    const secrets = existing === undefined ? [{ secret }] : rotated ? [{ secret }, { secret: existing.secrets[0]!.secret, until: now + this.bounds.secretGraceMs }] : existing.secrets;
    const grant = this.#grant(params.ttlMs);
    const record: SubscriptionRecord = { id, principal, url, name: subscription.type.name, args: subscription.args, secrets, expiresAt: grant === null ? null : now + grant };
    try {
      // Without expiry, the endpoint's verification is kept as long as the subscription.
      await this.settings.engine.verify(targetOf(record, now), grant === null ? { keepMs: null } : undefined);
    } catch (error) {
      throw this.#mapped(error);
    }
    const stored = await this.store.put(record, this.bounds);
    if (stored !== 'stored') throw this.service.errors.exhausted('subscriptions', stored === 'principal' ? this.bounds.perPrincipal : this.bounds.total);
    const result: JsonObject = { id, refreshBefore: grant === null ? null : new Date(now + grant).toISOString(), ...(await this.#start(record, subscription, from, maxAgeOf(params), ctx)) };
    if (existing !== undefined) {
      await this.settings.engine.reactivate(id);
      const status = await this.settings.engine.status(id);
      if (status !== undefined) result.deliveryStatus = status as JsonObject;
    }
    return result;
  }

  /** The subscription's cursor and `truncated`: now, or after replaying what followed the client's cursor. */
  async #start(record: SubscriptionRecord, subscription: Subscription<Scope>, from: CursorPosition | null, maxAgeMs: number | undefined, ctx: Context<Scope>): Promise<JsonObject> {
    if (from === null) return { cursor: this.service.cursorOf(subscription.type, await this.service.now(subscription.type)), truncated: false };
    const read = await this.service.read(subscription, from, maxAgeMs, REPLAY_ON_SUBSCRIBE, ctx);
    const target = targetOf(record, Date.now());
    for (let i = 0; i < read.events.length; i++) {
      const body = { ...read.events[i]!, cursor: this.service.cursorOf(subscription.type, read.positions[i]!) };
      await this.settings.engine.enqueue(target, { webhookId: read.events[i]!.eventId, body });
    }
    return { cursor: this.service.cursorOf(subscription.type, read.next), truncated: read.truncated || read.more };
  }

  async unsubscribe(params: JsonObject, ctx: Context<Scope>): Promise<JsonObject> {
    const principal = this.#principal(ctx, 'events/unsubscribe');
    const subscription = await this.service.resolve(params, 'webhook', ctx);
    const { url } = this.#delivery(params, false);
    const id = subscriptionId(principal, url, subscription.type.name, subscription.args);
    if (!(await this.store.delete(id))) throw this.service.errors.notFound('subscription');
    await this.settings.engine.forget(id);
    return {};
  }

  /** One occurrence to every live subscription of its type whose arguments it matches. */
  async #fanOut(type: EventType<Scope>, entry: LoggedEvent): Promise<void> {
    const records = await this.store.ofType(type.name);
    if (records.length === 0) return;
    const epoch = await this.service.log.epoch(type.name);
    const body = { ...occurrenceOf(type.name, entry), cursor: this.service.cursorOf(type, { epoch, position: entry.position }) };
    const now = Date.now();
    for (const record of records) {
      if (!safeMatch(type, record.args, entry.data)) continue;
      void this.#deliver(targetOf(record, now), { webhookId: entry.eventId, body }).catch((error: unknown) => this.service.report(error));
    }
  }

  /**
   * One occurrence to one subscription. When the engine refused an earlier one (a pending bound was
   * full), a `gap` envelope goes first, with the cursor after what was dropped: the receiver knows
   * it missed events and where to resume (by poll) instead of missing them silently.
   */
  async #deliver(target: WebhookTarget, delivery: { webhookId: string; body: JsonObject }): Promise<void> {
    const dropped = this.#dropped.get(target.subscriptionId);
    if (dropped !== undefined) {
      const gap = await this.settings.engine.enqueue(target, { webhookId: controlId('gap'), body: { type: 'gap', cursor: dropped } });
      if (gap === 'limit') return void this.#drop(target.subscriptionId, delivery.body.cursor as string | null);
      this.#dropped.delete(target.subscriptionId);
    }
    if ((await this.settings.engine.enqueue(target, delivery)) === 'limit') this.#drop(target.subscriptionId, delivery.body.cursor as string | null);
  }

  /** Subscriptions with a dropped occurrence, and the cursor after it (bounded like the subscriptions). */
  readonly #dropped = new Map<string, string | null>();

  #drop(id: string, cursor: string | null): void {
    this.#dropped.delete(id); // re-inserted: the map keeps the newest last
    this.#dropped.set(id, cursor);
    if (this.#dropped.size > this.bounds.total) this.#dropped.delete(this.#dropped.keys().next().value!);
  }
}

/** A control envelope's `webhook-id`: `msg_<type>_<random>`, a new one per message. */
function controlId(type: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `msg_${type}_${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function safeMatch<Scope>(type: EventType<Scope>, args: JsonObject, data: JsonObject): boolean {
  try {
    return type.matches(args, data) === true;
  } catch {
    return false;
  }
}
