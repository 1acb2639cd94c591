/**
 * `mcp.event(name, options)` and `mcp.configureEvents(options)`: the first registration builds the
 * extension (its log, its settings, its methods); each event type is then added to it, and its handle
 * emits occurrences.
 */
import { MemoryEventLog, type EventLog } from '../state/event-log.js';
import type { Signer } from '../signing/request-state.js';
import type { JsonSchemaConverter, SchemaLike } from '../schema/standard-schema.js';
import { CursorCodec } from './cursor.js';
import { EventErrors } from './errors.js';
import { buildEventType, type EventOptions, type EventType, type SchemaValue } from './event-type.js';
import { registerEventMethods, type EventHost, type EventMethodSettings } from './extension.js';
import { EventService, type EmitOptions } from './service.js';
import { resolveEventSettings, type EventsOptions } from './settings.js';
import { Webhooks } from './subscribe.js';
import { MemorySubscriptionStore, type SubscriptionStore } from '../state/event-subscriptions.js';
import { webhookBounds } from './webhook-settings.js';

/** What `mcp.event()` returns: the type's name, and `emit()` for emitted types. */
export interface EventHandle<Payload> {
  readonly name: string;
  /** Checks `data` against the payload schema and appends it to the log; resolves to the occurrence's eventId. */
  emit(data: Payload, options?: EmitOptions): Promise<{ eventId: string }>;
}

export interface EventSetContext<Scope> {
  host: EventHost<Scope>;
  signer: Signer;
  methods: EventMethodSettings;
  /** The shared state's event log and subscription records, when it has them (redisState()). */
  sharedLog: EventLog | undefined;
  sharedSubscriptions: SubscriptionStore | undefined;
  converter: JsonSchemaConverter | undefined;
  report(error: unknown): void;
  /** The list of event types changed: `notifications/events/list_changed` to whoever listens for it. */
  changed(): void;
}

export class EventSet<Scope> {
  #options: EventsOptions | undefined;
  #service: EventService<Scope> | undefined;

  constructor(private readonly context: EventSetContext<Scope>) {}

  configure(options: EventsOptions): void {
    resolveEventSettings(options); // a bad option throws here, not at the first event
    if (options.webhooks !== undefined) webhookBounds(options.webhooks);
    if (this.#service !== undefined || this.#options !== undefined) throw new Error('configureEvents() must come once, before the first mcp.event()');
    this.#options = options;
  }

  add<Payload extends SchemaLike>(name: string, options: EventOptions<SchemaLike | undefined, Payload, Scope>): EventHandle<SchemaValue<Payload>> {
    const type = buildEventType<Scope>(name, options as EventOptions<SchemaLike | undefined, SchemaLike, Scope>, this.#options?.webhooks !== undefined, this.context.converter);
    const service = (this.#service ??= this.#start());
    service.add(type);
    this.context.changed();
    return { name, emit: (data, emitOptions) => service.emit(type as EventType<Scope>, data, emitOptions) };
  }

  /** The service, once a type is registered (or a mount made it). */
  get service(): EventService<Scope> | undefined {
    return this.#service;
  }

  /** The service, started with its methods if there is none yet: a mount serves its child's types through it. */
  host(): EventService<Scope> {
    return (this.#service ??= this.#start());
  }

  #start(): EventService<Scope> {
    const options = this.#options ?? {};
    const settings = resolveEventSettings(options);
    const { host, signer, methods, sharedLog, report } = this.context;
    const log = options.log ?? sharedLog ?? new MemoryEventLog();
    const service = new EventService<Scope>(log, new CursorCodec(signer), new EventErrors(settings.codes), report);
    const hooks = options.webhooks;
    const webhooks = hooks === undefined ? undefined : new Webhooks(service, hooks, webhookBounds(hooks), hooks.subscriptions ?? this.context.sharedSubscriptions ?? new MemorySubscriptionStore(), host);
    registerEventMethods(host, service, settings, methods, webhooks);
    return service;
  }
}
