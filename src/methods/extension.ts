/**
 * The public extension API: what `mcp.method()` and `mcp.notification()` take, and how a user's
 * method becomes an entry of the method table with the same powers as a built-in one (eras,
 * capability, params schema, `ctx`, MRTR, cache hints, visibility; telemetry and hooks come from the
 * table itself). Built-in features use it too (the skills extension, src/skills/).
 */
import type { Context } from '../context/context.js';
import type { MethodSpec, NotificationFacts, NotificationSpec } from '../request/core.js';
import { InsufficientScopeError, internalError, invalidParams } from '../protocol/errors.js';
import type { Era, Eras, Revision } from '../protocol/revisions/revision.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { scopeList, type Caller, type MethodPrimitive, type Visibility, type VisibleRule } from '../primitives/visibility.js';
import { validatorOf, type InferOutput, type SchemaLike, type StandardSchemaV1, type Validation } from '../schema/standard-schema.js';
import type { CacheHint } from '../protocol/mcp-types.js';

import type { MaybePromise } from '../protocol/mcp-types.js';

/** Where a method's capability is declared: under `capabilities.extensions[id]`, or as a core capability. */
export type MethodCapability = { extension: string; settings?: JsonObject } | { core: string; settings?: JsonObject };

export interface MethodOptions<P extends SchemaLike | undefined = undefined, Scope = unknown> {
  /**
   * Which protocol families serve it: 'handshake' (2025-06-18 / 2025-11-25, after `initialize`),
   * 'stateless' (2026-07-28) or 'both' (the default). Elsewhere it is -32601.
   */
  eras?: Eras;
  /** The params, validated before the handler runs (Standard Schema or JSON Schema); invalid is -32602. `_meta` is never part of them. */
  params?: P;
  /** The capability the server declares while the method is served (settings of several methods under one id merge); a list declares each. */
  capability?: MethodCapability | readonly MethodCapability[];
  /** 2026 cache hint stamped on its result (`ttlMs`, `cacheScope`); a method with a `visible` rule is always private. */
  cache?: CacheHint;
  /** 2026: the handler may ask the client for input (`ctx.elicit`...), answered as `input_required` (MRTR). */
  mrtr?: boolean;
  /** Who may call it; to everyone else it does not exist (-32601), nor does its capability. */
  visible?: VisibleRule<Scope>;
  /**
   * The OAuth scopes a caller's token needs to call it (default: the server-wide `scopes` option; `[]`
   * opts out). A token without them gets 403 `insufficient_scope` over HTTP, as for a tool; requests
   * without a token (stdio, HTTP without `auth`) are not subject to scopes.
   */
  scopes?: string[];
  /**
   * Long-lived: the handler sends notifications (`ctx.notify`) until the client goes away. It takes no
   * concurrency slot and has no idle timeout (hold a place with `mcp.holdStream()` instead), and it is
   * refused where the transport has no channel to stream on.
   */
  stream?: boolean;
  /** Whether its results may differ by caller now (a rule applies somewhere): then, like `visible`, they are cached privately. */
  personal?: () => boolean;
}

export type MethodParams<P> = P extends StandardSchemaV1 ? InferOutput<P> : JsonObject;

/** Returns the result object (`undefined` is `{}`), or a promise of it. */
export type MethodHandler<Scope, P> = (params: MethodParams<P>, ctx: Context<Scope>) => MaybePromise<JsonObject | undefined>;

export interface NotificationOptions<P extends SchemaLike | undefined = undefined> {
  /** The params, validated before the handler runs; a notification that fails is dropped and reported to `onError`. */
  params?: P;
}

/** Runs synchronously as the notification arrives; what it throws (or rejects with) goes to `onError`. */
export type NotificationHandler<P> = (params: MethodParams<P>, sender: NotificationFacts) => void | Promise<void>;

/** Request params the protocol owns: never handed to a user's schema. */
const PROTOCOL_KEYS = ['_meta', 'requestState', 'inputResponses'];

function ownParams(params: JsonObject): JsonObject {
  if (!PROTOCOL_KEYS.some((key) => key in params)) return params;
  const own = { ...params };
  for (const key of PROTOCOL_KEYS) delete own[key];
  return own;
}

function resultObject(method: string, value: unknown): JsonObject {
  if (value === undefined) return {};
  if (isObject(value)) return value as JsonObject;
  throw internalError(`Method ${method} returned ${Array.isArray(value) ? 'an array' : typeof value}, not a result object`);
}

/** Whether this caller may use the method; a rule that throws hides it (fail closed) and is reported. */
function allowed<Scope>(rule: VisibleRule<Scope> | undefined, caller: Caller<Scope>, report: (error: unknown) => void): boolean {
  if (rule === undefined) return true;
  try {
    return rule(caller) === true;
  } catch (error) {
    report(error);
    return false;
  }
}

function checkOptions(name: string, options: MethodOptions<SchemaLike | undefined, never>): void {
  if (options.eras !== undefined && !['handshake', 'stateless', 'both'].includes(options.eras)) throw new Error(`Method ${name}: eras must be 'handshake', 'stateless' or 'both'`);
  if (options.visible !== undefined && typeof options.visible !== 'function') throw new Error(`Method ${name}: visible must be a function`);
  const caps = options.capability === undefined ? [] : Array.isArray(options.capability) ? options.capability : [options.capability];
  for (const cap of caps as { extension?: unknown; core?: unknown }[]) {
    if (typeof cap?.extension !== 'string' && typeof cap?.core !== 'string') throw new Error(`Method ${name}: capability must be { extension: id } or { core: name }`);
  }
  if (options.stream !== undefined && typeof options.stream !== 'boolean') throw new Error(`Method ${name}: stream must be a boolean`);
  if (options.personal !== undefined && typeof options.personal !== 'function') throw new Error(`Method ${name}: personal must be a function`);
}

/** A user's method as an entry of the method table. */
export function methodSpec<Scope>(
  name: string,
  options: MethodOptions<SchemaLike | undefined, Scope>,
  handler: MethodHandler<Scope, unknown>,
  /** The server's rules: its default scopes apply to a method that names none. */
  visibility?: Visibility<Scope>,
): MethodSpec {
  checkOptions(name, options);
  if (typeof handler !== 'function') throw new Error(`Method ${name}: the handler must be a function`);
  const validate = options.params === undefined ? undefined : validatorOf(options.params);
  const { visible, cache, personal } = options;
  const scoped: MethodPrimitive & { scopes?: readonly string[] } = { kind: 'method', id: name, definition: { name }, scopes: scopeList(`Method ${name}`, options.scopes) };
  // A result only some callers may use is never cached publicly (a shared cache would hand it to the others).
  const scopedOut = visible !== undefined || (visibility?.needed(scoped)?.length ?? 0) > 0;
  const finish = (value: unknown, revision: Revision): JsonObject => {
    const result = resultObject(name, value);
    return (scopedOut || personal?.() === true) && revision.caches && cache !== undefined ? { ...result, cacheScope: 'private' } : result;
  };
  const invoke = (params: unknown, ctx: Context<Scope>, revision: Revision): JsonObject | Promise<JsonObject> => {
    const value = handler(params as never, ctx);
    return value instanceof Promise ? value.then((v) => finish(v, revision)) : finish(value, revision);
  };
  const checked = (checking: Validation, ctx: Context<Scope>, revision: Revision): JsonObject | Promise<JsonObject> => {
    if (!checking.ok) throw invalidParams(`Invalid params for ${name}: ${checking.message}`);
    return invoke(checking.value, ctx, revision);
  };
  return {
    eras: options.eras ?? 'both',
    cache,
    mrtr: options.mrtr === true,
    stream: options.stream === true,
    run(core, call) {
      const { revision } = call;
      if (options.stream === true && call.send === undefined) throw internalError(`${name} needs a streaming transport`);
      if (!allowed(visible, call.ctx, (error) => core.reportError(error, undefined))) throw revision.methodNotFound(name);
      const missing = visibility?.missing(scoped, call.ctx);
      if (missing !== undefined) throw new InsufficientScopeError(missing);
      const params = ownParams(call.params);
      if (validate === undefined) return invoke(params, call.ctx, revision);
      const checking = validate(params);
      return checking instanceof Promise ? checking.then((c) => checked(c, call.ctx, revision)) : checked(checking, call.ctx, revision);
    },
  };
}

/** A user's notification handler as an entry of the method table. */
export function notificationSpec(name: string, options: NotificationOptions<SchemaLike | undefined>, handler: NotificationHandler<unknown>): NotificationSpec {
  if (typeof handler !== 'function') throw new Error(`Notification ${name}: the handler must be a function`);
  const validate = options.params === undefined ? undefined : validatorOf(options.params);
  const deliver = (checking: Validation, sender: NotificationFacts): void | Promise<void> => {
    if (!checking.ok) throw invalidParams(`Invalid params for notification ${name}: ${checking.message}`);
    return handler(checking.value as never, sender);
  };
  return {
    run(_core, params, sender) {
      const own = ownParams(params);
      if (validate === undefined) return handler(own as never, sender);
      const checking = validate(own);
      return checking instanceof Promise ? checking.then((c) => deliver(c, sender)) : deliver(checking, sender);
    },
  };
}

/** Whether a method registered with these options is served in this era. */
export const servedIn = (eras: Eras, era: Era): boolean => eras === 'both' || eras === era;

export { allowed as callerMayUse };
