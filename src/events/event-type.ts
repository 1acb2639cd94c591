/**
 * One event type as `mcp.event(name, options)` registers it: its published descriptor, its checked
 * schemas, who may see it, how occurrences match a subscription's arguments, and its retention.
 */
import type { Context } from '../context/context.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { scopeList, type VisibleRule } from '../primitives/visibility.js';
import { compileSchema, type CompiledSchema, type InferOutput, type JsonSchemaConverter, type SchemaLike, type StandardSchemaV1 } from '../schema/standard-schema.js';
import type { FromJsonSchema } from '../schema/json-schema-types.js';
import type { Retention } from '../state/event-log.js';

export type DeliveryMode = 'poll' | 'push' | 'webhook';
const MODES: readonly DeliveryMode[] = ['poll', 'push', 'webhook'];

/** What a schema describes: a Standard Schema's output, a literal JSON Schema's shape. */
export type SchemaValue<S> = S extends StandardSchemaV1 ? InferOutput<S> : S extends JsonObject ? FromJsonSchema<S> : JsonObject;

/** One occurrence read from an upstream by a `source`. */
export interface SourcedEvent<Data = JsonObject> {
  /** The upstream's stable id (recommended: clients deduplicate on it). */
  eventId: string;
  data: Data;
  /** When it happened (ISO 8601 or milliseconds); default now. */
  timestamp?: string | number;
}

export interface SourceRead<Data = JsonObject> {
  events: SourcedEvent<Data>[];
  /** The upstream's position after these events; null when it has none (no replay). */
  cursor: string | null;
  /** The upstream could not resume from the cursor it was given. */
  truncated?: boolean;
}

/** Reads the upstream after `cursor` (null: "from now", return no events and the current position). */
export type EventSource<Args, Data, Scope> = (args: Args, cursor: string | null, ctx: Context<Scope>) => Promise<SourceRead<Data>> | SourceRead<Data>;

export interface EventOptions<In extends SchemaLike | undefined, Payload extends SchemaLike, Scope = unknown> {
  description: string;
  /** The subscription arguments (published as `inputSchema`); none by default. */
  input?: In;
  /** The occurrence's `data` (published as `payloadSchema`); every emitted payload is checked against it. */
  payload: Payload;
  /** Modes offered; default `poll` (with replay), `push`, and `webhook` when configured; `poll` and `push` for a `source`. */
  delivery?: readonly DeliveryMode[];
  /** Replay from a cursor (default on), with this type's retention (default 1,000 events, 24 hours). */
  replay?: boolean | Partial<Retention>;
  /** Who may see and subscribe to it (as `visible` on a tool). */
  visible?: VisibleRule<Scope>;
  /** OAuth scopes a caller's token needs to see and subscribe to it. */
  scopes?: readonly string[];
  /**
   * Whether an emitted occurrence concerns a subscription with these arguments. Default: every
   * argument that names a top-level payload field with a string, number or boolean value must equal it.
   */
  matches?: (args: ArgsOf<In>, data: SchemaValue<Payload>) => boolean;
  /** For events whose truth lives upstream: read them from a cursor instead of emitting them. */
  source?: EventSource<ArgsOf<In>, SchemaValue<Payload>, Scope>;
  _meta?: JsonObject;
}

export type ArgsOf<In> = In extends undefined ? JsonObject : SchemaValue<In>;

export const DEFAULT_RETENTION: Retention = Object.freeze({ maxEvents: 1_000, maxAgeMs: 24 * 3_600_000 });
const MAX_RETAINED_EVENTS = 1_000_000;

const NO_ARGUMENTS: JsonObject = { type: 'object', properties: {}, additionalProperties: false };

/** A type without arguments checks `{}` without a JSON Schema validator (the common case, on every poll). */
const noArguments: CompiledSchema = {
  jsonSchema: NO_ARGUMENTS,
  validate: (value) => (isObject(value) && Object.keys(value).length === 0 ? { ok: true, value } : { ok: false, message: 'this event type takes no arguments' }),
};

/** The default `matches`: arguments that name a scalar payload field filter on it. */
export function defaultMatches(args: JsonObject, data: JsonObject): boolean {
  for (const key of Object.keys(args)) {
    const value = data[key];
    if (Object.hasOwn(data, key) && (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && value !== args[key]) return false;
  }
  return true;
}

export interface EventType<Scope> {
  readonly name: string;
  readonly descriptor: JsonObject;
  readonly input: CompiledSchema;
  readonly payload: CompiledSchema;
  readonly delivery: readonly DeliveryMode[];
  /** Undefined: no replay (cursors are null). */
  readonly retention: Retention | undefined;
  readonly visible: VisibleRule<Scope> | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly matches: (args: JsonObject, data: JsonObject) => boolean;
  readonly source: EventSource<JsonObject, JsonObject, Scope> | undefined;
}

function retentionOf(name: string, replay: EventOptions<undefined, SchemaLike>['replay']): Retention | undefined {
  if (replay === false) return undefined;
  const given = replay === true || replay === undefined ? {} : replay;
  const retention = { ...DEFAULT_RETENTION, ...given };
  if (!Number.isInteger(retention.maxEvents) || retention.maxEvents < 1 || retention.maxEvents > MAX_RETAINED_EVENTS) {
    throw new Error(`Event ${name}: replay.maxEvents must be an integer in 1..${MAX_RETAINED_EVENTS}`);
  }
  if (!Number.isInteger(retention.maxAgeMs) || retention.maxAgeMs < 1) throw new Error(`Event ${name}: replay.maxAgeMs must be a positive integer`);
  return Object.freeze(retention);
}

function deliveryOf(name: string, options: EventOptions<undefined, SchemaLike, never>, replay: boolean, webhooks: boolean): readonly DeliveryMode[] {
  const emitted: DeliveryMode[] = replay ? ['poll', 'push'] : ['push'];
  const fallback: DeliveryMode[] = options.source !== undefined ? ['poll', 'push'] : webhooks ? [...emitted, 'webhook'] : emitted;
  const delivery = options.delivery ?? fallback;
  if (!Array.isArray(delivery) || delivery.length === 0 || !delivery.every((m) => MODES.includes(m)) || new Set(delivery).size !== delivery.length) {
    throw new Error(`Event ${name}: delivery must be a non-empty list of 'poll', 'push' and 'webhook'`);
  }
  if (delivery.includes('poll') && !replay) throw new Error(`Event ${name}: poll needs replay (a poll resumes from a cursor)`);
  if (options.source !== undefined && delivery.includes('webhook')) throw new Error(`Event ${name}: a source type is read on request, webhook delivery needs emit()`);
  if (delivery.includes('webhook') && !webhooks) throw new Error(`Event ${name}: webhook delivery needs configureEvents({ webhooks }) first`);
  return Object.freeze([...delivery]);
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;

/** Checks the options at registration: a mistake throws here, naming the event, never at a request. */
export function buildEventType<Scope>(name: string, options: EventOptions<SchemaLike | undefined, SchemaLike, Scope>, webhooks: boolean, converter?: JsonSchemaConverter): EventType<Scope> {
  if (typeof name !== 'string' || !NAME.test(name)) throw new Error(`Event name must be 1-128 letters, digits, '.', '_', '/' or '-': ${JSON.stringify(name)}`);
  if (typeof options?.description !== 'string') throw new Error(`Event ${name}: description must be a string`);
  if (options.payload === undefined) throw new Error(`Event ${name}: payload schema is required`);
  if (options.visible !== undefined && typeof options.visible !== 'function') throw new Error(`Event ${name}: visible must be a function`);
  if (options.source !== undefined && typeof options.source !== 'function') throw new Error(`Event ${name}: source must be a function`);
  const input = options.input === undefined ? noArguments : compileSchema(options.input, 'input', converter);
  const payload = compileSchema(options.payload, 'output', converter);
  for (const [what, schema] of [['input', input], ['payload', payload]] as const) {
    if (schema.jsonSchema.type !== 'object') throw new Error(`Event ${name}: the ${what} schema must describe an object`);
  }
  const retention = retentionOf(name, options.replay);
  const delivery = deliveryOf(name, options as EventOptions<undefined, SchemaLike, never>, retention !== undefined, webhooks);
  const descriptor: JsonObject = { name, description: options.description, delivery: [...delivery], inputSchema: input.jsonSchema, payloadSchema: payload.jsonSchema };
  if (options._meta !== undefined) descriptor._meta = options._meta;
  return {
    name, descriptor, input, payload, delivery, retention,
    visible: options.visible, scopes: scopeList(`Event ${name}`, options.scopes),
    matches: (options.matches as EventType<Scope>['matches'] | undefined) ?? defaultMatches,
    source: options.source as EventType<Scope>['source'],
  };
}
