/**
 * The event types of one server and what every delivery mode asks of them: which type a caller may
 * use (visibility and scopes, like tools), its checked arguments, emitting into the log, and reading
 * a subscription from a cursor.
 */
import type { Context } from '../context/context.js';
import { hasScopes } from '../protocol/auth-info.js';
import { invalidParams } from '../protocol/errors.js';
import { loadCrypto } from '../platform/crypto.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Caller } from '../primitives/visibility.js';
import type { CursorCodec, CursorPosition } from './cursor.js';
import type { EventErrors } from './errors.js';
import type { DeliveryMode, EventType } from './event-type.js';
import type { EventLog, LoggedEvent } from '../state/event-log.js';
import { PASS_THROUGH, readLog, readSource, type SubscriptionRead } from './reading.js';

/** A subscription as a request names it: its type and checked arguments. */
export interface Subscription<Scope> {
  readonly type: EventType<Scope>;
  readonly args: JsonObject;
}

export interface EmitOptions {
  /** The upstream's stable id (Stripe `evt_*`, a delivery GUID): clients deduplicate on it. Default: a random one. */
  eventId?: string;
}

const MAX_EVENT_ID = 256;

/** A published type that another service keeps (a mount): that service, and the type as it names it. */
export interface Backing<Scope> {
  readonly service: EventService<Scope>;
  readonly type: EventType<Scope>;
}

/**
 * Event types this service publishes but another one keeps (src/gateway/mount-events.ts): their log,
 * cursors, `matches` and push wake-ups are the owner's; only the name (and so the list) is this one's.
 */
export interface EventTypeSource<Scope> {
  /** Its types as published here (with the owner's visibility as their `visible` rule). */
  types(): readonly EventType<Scope>[];
  /** The owner of one of them; undefined for a type that is not its own. */
  backing(type: EventType<Scope>): Backing<Scope> | undefined;
}

/** Called for each occurrence appended (webhook fan-out). */
export type EmitListener<Scope> = (type: EventType<Scope>, entry: LoggedEvent) => void;

export class EventService<Scope> {
  readonly #types = new Map<string, EventType<Scope>>();
  readonly emitted = new Set<EmitListener<Scope>>();
  readonly #sources = new Set<EventTypeSource<Scope>>();

  constructor(
    readonly log: EventLog,
    readonly cursors: CursorCodec,
    readonly errors: EventErrors,
    readonly report: (error: unknown) => void,
  ) {}

  add(type: EventType<Scope>): void {
    if (this.#types.has(type.name)) throw new Error(`Event ${type.name} is already registered`);
    this.#types.set(type.name, type);
  }

  /** Serves another service's types as this one's until the returned function is called. */
  addSource(source: EventTypeSource<Scope>): () => void {
    this.#sources.add(source);
    return () => void this.#sources.delete(source);
  }

  /** Every type it publishes, its own and its sources'. */
  types(): EventType<Scope>[] {
    return this.#all();
  }

  #all(): EventType<Scope>[] {
    const all = [...this.#types.values()];
    for (const source of this.#sources) all.push(...source.types());
    return all;
  }

  #find(name: string): EventType<Scope> | undefined {
    return this.#types.get(name) ?? this.#all().find((type) => type.name === name);
  }

  #backing(type: EventType<Scope>): Backing<Scope> | undefined {
    if (this.#types.get(type.name) === type) return undefined;
    for (const source of this.#sources) {
      const backing = source.backing(type);
      if (backing !== undefined) return backing;
    }
    return undefined;
  }

  /** True when some type has a rule (or another service's rules apply): what `events/list` shows differs by caller. */
  get personal(): boolean {
    if (this.#sources.size > 0) return true;
    for (const type of this.#types.values()) if (type.visible !== undefined || type.scopes !== undefined) return true;
    return false;
  }

  mayUse(type: EventType<Scope>, caller: Caller<Scope>): boolean {
    try {
      if (type.visible !== undefined && type.visible(caller) !== true) return false;
    } catch (error) {
      this.report(error);
      return false; // a rule that throws hides the type (fail closed)
    }
    return type.scopes === undefined || caller.auth === undefined || hasScopes(caller.auth, type.scopes);
  }

  visibleTo(caller: Caller<Scope>): EventType<Scope>[] {
    return this.#all().filter((type) => this.mayUse(type, caller));
  }

  /** The type and checked arguments of a request: NotFound, Unsupported or -32602 otherwise. */
  async resolve(params: JsonObject, mode: DeliveryMode, caller: Caller<Scope>): Promise<Subscription<Scope>> {
    await loadCrypto(); // cursors are signed (HMAC), synchronously once it is loaded
    const type = this.#find(params.name as string);
    if (type === undefined || !this.mayUse(type, caller)) throw this.errors.notFound('event', String(params.name));
    if (!type.delivery.includes(mode)) throw this.errors.unsupported('deliveryMode', mode);
    const checking = await type.input.validate(params.arguments ?? {});
    if (!checking.ok) throw invalidParams(`Invalid arguments for event ${type.name}: ${checking.message}`);
    return { type, args: checking.value as JsonObject };
  }

  /** The position a request's cursor names; null for "from now" (null or absent). */
  from(type: EventType<Scope>, cursor: unknown): CursorPosition | null {
    if (cursor === null || cursor === undefined) return null;
    const backing = this.#backing(type);
    return backing === undefined ? this.cursors.decode(type.name, cursor) : backing.service.from(backing.type, cursor);
  }

  /** The cursor a client gets for a position: null where the type has no replay. */
  cursorOf(type: EventType<Scope>, at: CursorPosition | null): string | null {
    const backing = this.#backing(type);
    if (backing !== undefined) return backing.service.cursorOf(backing.type, at);
    return at === null || type.retention === undefined ? null : this.cursors.encode(type.name, at);
  }

  async read(subscription: Subscription<Scope>, from: CursorPosition | null, maxAgeMs: number | undefined, limit: number, ctx: Context<Scope>): Promise<SubscriptionRead> {
    const backing = this.#backing(subscription.type);
    if (backing !== undefined) {
      const read = await backing.service.read({ type: backing.type, args: subscription.args }, from, maxAgeMs, limit, ctx);
      return { ...read, events: read.events.map((event) => ({ ...event, name: subscription.type.name })) };
    }
    const request = { args: subscription.args, from, maxAgeMs, limit };
    return subscription.type.source !== undefined ? readSource(subscription.type, request, ctx) : readLog(this.log, subscription.type, request);
  }

  /** The position of "now" for a new subscription. */
  async now(type: EventType<Scope>): Promise<CursorPosition> {
    const backing = this.#backing(type);
    if (backing !== undefined) return backing.service.now(backing.type);
    return { epoch: await this.log.epoch(type.name), position: await this.log.head(type.name) };
  }

  /** Calls `wake` when the type's log grows (push); returns the function that stops it. */
  watch(type: EventType<Scope>, wake: () => void): () => void {
    const backing = this.#backing(type);
    return backing === undefined ? this.log.watch(type.name, wake) : backing.service.watch(backing.type, wake);
  }

  /** Checks the payload against the type's schema, appends it, and tells the webhook fan-out. */
  async emit(type: EventType<Scope>, data: unknown, options: EmitOptions = {}): Promise<{ eventId: string }> {
    if (type.source !== undefined) throw new Error(`Event ${type.name} reads a source: it is not emitted`);
    await loadCrypto(); // the fan-out signs cursors, also on an instance that has answered no request yet
    const eventId = options.eventId ?? `evt_${crypto.randomUUID()}`;
    if (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > MAX_EVENT_ID) throw new TypeError(`emit(): eventId must be a string of 1-${MAX_EVENT_ID} characters`);
    const checking = await type.payload.validate(data);
    if (!checking.ok) throw new TypeError(`emit(${type.name}): the payload does not match its schema: ${checking.message}`);
    const entry = await this.log.append(type.name, { eventId, timestamp: Date.now(), data: checking.value as JsonObject }, type.retention ?? PASS_THROUGH);
    for (const listener of this.emitted) {
      try {
        listener(type, entry);
      } catch (error) {
        this.report(error);
      }
    }
    return { eventId };
  }
}
