/**
 * One request, from envelope to reply: era and validation ladder, method lookup, limits, context,
 * hooks, the handler, result shaping and the single place where errors become replies.
 */
import { MrtrBroker, StreamBroker, type InputBroker } from './context/client-requests.js';
import { Context, levelRank, runWithContext } from './context/context.js';
import { Execution, type Interrupt } from './context/execution.js';
import { RequestRegistry } from './context/in-flight.js';
import { overloaded } from './context/limits.js';
import type { Call, Core, HandleOptions, Outcome, RequestInfo } from './core.js';
import { ErrorCode, McpError, internalError, invalidParams } from './protocol/errors.js';
import { errorResponse, resultResponse, type JsonObject, type RequestId } from './protocol/jsonrpc.js';
import { checkStandardHeaders } from './protocol/standard-headers.js';
import {
  checkLegacyHeader, detectEra, readModernMeta, DEFAULT_HTTP_LEGACY_VERSION, LATEST_LEGACY_VERSION, META, type Era, type ModernMeta,
} from './protocol/versions.js';
import { METHODS, type MethodSpec } from './methods.js';
import type { ClientCapabilities, Implementation } from './types.js';

export const NO_REPLY: Outcome = { reply: undefined, status: 202 };

export function errorOutcome(id: RequestId | null, error: McpError): Outcome {
  return { reply: errorResponse(id, error) as unknown as JsonObject, status: error.httpStatus ?? 200 };
}

const methodNotFound = (method: string, era: Era): McpError =>
  new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`, undefined, era === 'modern' ? 404 : undefined);

const eraAllows = (spec: MethodSpec, era: Era): boolean => spec.eras === 'both' || spec.eras === era;

/** Maps anything thrown to a protocol error; unexpected errors are logged, never sent with a stack. */
function toMcpError<Scope>(core: Core<Scope>, error: unknown, request: RequestInfo, modern: boolean): McpError {
  if (error instanceof McpError) return modern ? modernize(error) : error;
  core.reportError(error, request);
  return core.settings.debug && error instanceof Error ? internalError(`Internal error: ${error.message}`) : internalError('Internal error');
}

/** 2026 clients never see the retired codes: -32002 becomes -32602 (same data), -32042 becomes -32603. */
function modernize(error: McpError): McpError {
  if (error.code === ErrorCode.ResourceNotFoundRetired) return new McpError(ErrorCode.InvalidParams, error.message, error.data);
  if (error.code === ErrorCode.UrlElicitationRequired) return internalError(error.message);
  return error;
}

/**
 * Receives an outcome that was not ready at once. A callback rather than a promise: transports
 * answer from it directly, and on Node 20 every promise pays AsyncLocalStorage's hooks.
 */
export type Deliver = (outcome: Outcome) => void;

/**
 * A 2025 request on a stream that never saw `initialize` (stdio), and without the 2026 `_meta`
 * that would make it stand alone: neither way in was taken, so it is refused rather than served
 * with guessed capabilities. `ping` is allowed before initialization. Only transports that ask
 * (`requireInitialize`) get the check: HTTP without a session is stateless 2025 by design.
 */
function notInitialized<Scope>(method: string, era: Era, opts: HandleOptions<Scope>): McpError | undefined {
  const connection = opts.connection;
  if (era !== 'legacy' || !opts.requireInitialize || connection === undefined || connection.protocolVersion !== undefined) return undefined;
  if (method === 'initialize' || method === 'ping') return undefined;
  return invalidParams(
    `This connection is not initialized: send initialize first (2025-11-25), or give every request ` +
      `the 2026-07-28 _meta ("${META.protocolVersion}" and "${META.clientCapabilities}")`,
  );
}

/**
 * Returns the outcome when the handler answered synchronously; otherwise returns undefined and
 * calls `deliver` exactly once, later.
 */
export function dispatchRequest<Scope>(
  core: Core<Scope>,
  id: RequestId,
  method: string,
  rawParams: JsonObject | undefined,
  opts: HandleOptions<Scope>,
  deliver: Deliver,
): Outcome | undefined {
  const headers = opts.headers;
  const versionHeader = headers?.get('mcp-protocol-version') ?? undefined;
  const sessionId = headers?.get('mcp-session-id') ?? undefined;
  const era = detectEra(rawParams, headers ? { protocolVersionHeader: versionHeader, sessionId } : undefined);
  let modern: ModernMeta | undefined;
  if (era === 'modern') {
    const meta = readModernMeta(rawParams, versionHeader);
    if (meta instanceof McpError) return errorOutcome(id, meta);
    modern = meta;
    // SEP-2243: over HTTP the version header is required on every 2026 request, like Mcp-Method.
    if (headers && versionHeader === undefined) {
      return errorOutcome(id, new McpError(ErrorCode.HeaderMismatch, 'Missing MCP-Protocol-Version header', undefined, 400));
    }
    const mismatch = headers && checkStandardHeaders(method, rawParams, headers);
    if (mismatch) return errorOutcome(id, mismatch);
    if (meta.logLevel !== undefined && levelRank(meta.logLevel) < 0) {
      return errorOutcome(id, invalidParams(`Invalid log level: ${meta.logLevel}`, undefined, 400));
    }
  } else if (headers) {
    const unsupported = checkLegacyHeader(versionHeader);
    if (unsupported) return errorOutcome(id, unsupported);
  }
  const spec = METHODS.get(method);
  if (!spec || !eraAllows(spec, era) || (spec.enabled && !spec.enabled(core))) return errorOutcome(id, methodNotFound(method, era));
  const noWayIn = notInitialized(method, era, opts);
  if (noWayIn) return errorOutcome(id, noWayIn);

  const protocolVersion = modern?.protocolVersion ?? opts.connection?.protocolVersion ?? versionHeader ??
    (headers ? DEFAULT_HTTP_LEGACY_VERSION : LATEST_LEGACY_VERSION);
  const facts: RequestFacts = { id, method, params: rawParams ?? {}, era, modern, protocolVersion };
  const execution = new Execution();
  // Registered (before it waits for a slot, so a request cancelled in the queue never runs) where a
  // `notifications/cancelled` can name it: on a connection, or in code with no transport at all.
  // Over HTTP without a session, ids are not unique across clients (one could cancel another's
  // request); those requests are cancelled by closing the connection instead.
  const key = opts.connection !== undefined || opts.headers === undefined ? RequestRegistry.key(opts.connection?.id, id) : undefined;
  if (key !== undefined) core.inFlight.add(key, execution);
  const signal = opts.signal;
  const onAbort = (): void => execution.abort(signal?.reason ?? new Error('aborted'));
  signal?.addEventListener('abort', onAbort);
  let holdsSlot = false;
  const cleanup = (): void => {
    if (holdsSlot) core.gate.release();
    if (key !== undefined) core.inFlight.delete(key, execution);
    signal?.removeEventListener('abort', onAbort);
    execution.finish();
  };
  // Where a later outcome goes: the request is cleaned up first, as for one answered at once.
  const later = (outcome: Outcome): void => {
    cleanup();
    try {
      deliver(outcome);
    } catch (error) {
      core.reportError(error, infoOf(facts)); // the transport failed to answer; nothing else can
    }
  };
  // A request already cancelled (a dead connection, a cancel while queued) never starts its handler.
  const run = (): Outcome | undefined => (execution.aborted ? abortedOutcome(id, execution) : execute(core, spec, facts, execution, opts, later));
  let outcome: Outcome | undefined;
  try {
    if (signal?.aborted) onAbort();
    if (spec.stream) {
      outcome = run(); // listen streams hold no slot
    } else {
      const admitted = core.gate.acquire();
      if (admitted === true) {
        holdsSlot = true;
        outcome = run();
      } else if (admitted === false) {
        outcome = errorOutcome(id, overloaded());
      } else {
        admitted.then((ok) => {
          let queued: Outcome | undefined;
          try {
            holdsSlot = ok;
            queued = ok ? run() : errorOutcome(id, overloaded());
          } catch (error) {
            queued = unexpected(core, facts, error);
          }
          if (queued !== undefined) later(queued);
        });
        return undefined;
      }
    }
  } catch (error) {
    outcome = unexpected(core, facts, error);
  }
  if (outcome !== undefined) cleanup();
  return outcome;
}

/** A failure outside the handler's own error path (a broken hook, a bug): logged, answered -32603. */
function unexpected<Scope>(core: Core<Scope>, facts: RequestFacts, error: unknown): Outcome {
  core.reportError(error, infoOf(facts));
  return errorOutcome(facts.id, internalError('Internal error'));
}

/** What the ladder established about a request before it runs. */
interface RequestFacts {
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject;
  readonly era: Era;
  readonly modern: ModernMeta | undefined;
  readonly protocolVersion: string;
}

/** A request the client cancelled gets no answer; one the server stopped (shutdown, disconnect) gets an error. */
const abortedOutcome = (id: RequestId, execution: Execution): Outcome =>
  execution.cancelledByClient ? NO_REPLY : errorOutcome(id, internalError('Request cancelled'));

const ok = (id: RequestId, result: JsonObject): Outcome => ({ reply: resultResponse(id, result) as unknown as JsonObject, status: 200 });

/** Everything a running handler needs after it returned a promise. */
interface Running<Scope> {
  core: Core<Scope>;
  spec: MethodSpec;
  facts: RequestFacts;
  execution: Execution;
  ctx: Context<Scope>;
  mrtr: MrtrBroker | undefined;
  principal: string;
  /** Takes the outcome once it is known (and releases the request's slot and registrations). */
  later: (outcome: Outcome) => void;
}

/**
 * Builds the context and runs the method. A handler that returns a plain value is answered on the
 * spot, without a promise; only one that returns a promise waits (see `settle`).
 */
function execute<Scope>(
  core: Core<Scope>,
  spec: MethodSpec,
  facts: RequestFacts,
  execution: Execution,
  opts: HandleOptions<Scope>,
  later: (outcome: Outcome) => void,
  opened?: JsonObject,
): Outcome | undefined {
  const { id, method, params, era, modern } = facts;
  const connection = opts.connection;
  const retry = modern !== undefined && spec.mrtr === true && params.requestState !== undefined;
  if (retry && opened === undefined) {
    // Opening the MRTR state checks its HMAC (Web Crypto, asynchronous); then this runs again with the answers.
    Promise.resolve()
      .then(() => core.stateCodec.open(params.requestState, method, params, core.principalOf(opts.scope)))
      .then(
        (sealed) => {
          const outcome = execution.aborted ? abortedOutcome(id, execution) : execute(core, spec, facts, execution, opts, later, sealed);
          if (outcome !== undefined) later(outcome);
        },
        (error: unknown) => later(failure(core, facts, error, undefined)),
      );
    return undefined;
  }
  let ctx: Context<Scope> | undefined;
  try {
    const principal = core.principalOf(opts.scope);
    let broker: InputBroker;
    let mrtr: MrtrBroker | undefined;
    if (modern) {
      const sealed = opened ?? {};
      const responses = params.inputResponses;
      if (responses !== undefined && (typeof responses !== 'object' || responses === null || Array.isArray(responses))) {
        throw invalidParams('params.inputResponses must be an object');
      }
      const answers = { ...sealed, ...(responses as JsonObject | undefined) };
      broker = mrtr = new MrtrBroker(answers, modern.clientCapabilities as ClientCapabilities, () => execution.needsInput());
    } else {
      broker = new StreamBroker(core.pending, opts.send, connection?.clientCapabilities, core.settings.clientRequestTimeoutMs, execution);
    }
    ctx = new Context<Scope>({
      scope: opts.scope as Scope,
      execution,
      requestId: id,
      method,
      era,
      protocolVersion: facts.protocolVersion,
      client: clientFacts(modern, connection),
      meta: params._meta as JsonObject | undefined,
      logThreshold: logThreshold(modern, connection?.logLevel),
      send: opts.send,
      broker,
      closeStream: opts.closeStream,
      waitUntil: opts.waitUntil,
    });
    const call: Call<Scope> = { id, method, params, era, modern, headers: opts.headers, connection, send: opts.send, ctx };
    // Without hooks the method runs directly; a synchronous result (lists, ping) needs no race at all.
    const run = (): JsonObject | Promise<JsonObject> => (core.hooks.length ? runHandler(core, spec, call, infoOf(facts)) : spec.run(core, call));
    const work = core.settings.asyncContext ? runWithContext(ctx as Context<unknown>, run) : run();
    if (work instanceof Promise) return settle({ core, spec, facts, execution, ctx, mrtr, principal, later }, work);
    return ok(id, shape(core, spec, modern, work));
  } catch (error) {
    return failure(core, facts, error, ctx);
  }
}

/**
 * Waits for a handler's promise or the first interrupt, whichever comes first: a result, MRTR's
 * `input_required`, cancellation or the idle timeout. A listen stream ignores interrupts and has no
 * idle clock: it ends cleanly when its handler returns. (A synchronous handler cannot go idle, so the
 * clock starts here.)
 */
function settle<Scope>(run: Running<Scope>, work: Promise<JsonObject>): undefined {
  const { core, spec, facts, execution } = run;
  if (!spec.stream) core.idle.watch(execution);
  let done = false;
  const finish = (outcome: () => Outcome): void => {
    if (done) return;
    done = true;
    core.idle.unwatch(execution);
    let answer: Outcome;
    try {
      answer = outcome();
    } catch (error) {
      answer = failure(core, facts, error, run.ctx);
    }
    run.later(answer);
  };
  work.then(
    (result) => finish(() => ok(facts.id, shape(core, spec, facts.modern, result))),
    (error: unknown) => finish(() => failure(core, facts, error, run.ctx)),
  );
  if (!spec.stream) {
    execution.onInterrupt((why) => {
      if (why !== 'input') return finish(() => interrupted(run, why));
      // Sealing the MRTR state signs it (Web Crypto, asynchronous); what it seals is taken now.
      const { mrtr } = run;
      const inputRequests = mrtr!.inputRequests;
      core.stateCodec.seal(facts.method, facts.params, run.principal, { ...mrtr!.used }).then(
        (requestState) => finish(() => ok(facts.id, { resultType: 'input_required', inputRequests, requestState })),
        (error: unknown) => finish(() => failure(core, facts, error, run.ctx)),
      );
    });
  }
  return undefined;
}

function interrupted<Scope>(run: Running<Scope>, why: Exclude<Interrupt, 'input'>): Outcome {
  const { core, facts, execution } = run;
  if (why === 'aborted') return abortedOutcome(facts.id, execution);
  throw internalError(`Request timed out after ${core.settings.idleTimeoutMs} ms without progress`);
}

/** The one place a failed request becomes an error reply: mapped, reported to the hooks, answered. */
function failure<Scope>(core: Core<Scope>, facts: RequestFacts, error: unknown, ctx: Context<Scope> | undefined): Outcome {
  const request = infoOf(facts);
  let mcpError: McpError;
  try {
    mcpError = toMcpError(core, error, request, facts.modern !== undefined);
  } catch {
    mcpError = internalError('Internal error'); // a hostile thrown value (a Proxy, a throwing getter)
  }
  for (const hook of core.hooks) {
    try {
      hook.onError?.(request, mcpError, ctx);
    } catch (hookError) {
      core.reportError(hookError, request); // a broken logging hook must not cost the answer
    }
  }
  return errorOutcome(request.id, mcpError);
}

/** What hooks and `onError` are told about a request. */
const infoOf = (facts: RequestFacts): RequestInfo => ({ id: facts.id, method: facts.method, params: facts.params });

async function runHandler<Scope>(core: Core<Scope>, spec: MethodSpec, call: Call<Scope>, request: RequestInfo): Promise<JsonObject> {
  for (const hook of core.hooks) if (hook.before) await hook.before(request, call.ctx);
  const result = await spec.run(core, call);
  for (const hook of core.hooks) if (hook.after) await hook.after(request, result, call.ctx);
  return result;
}

/** 2026 results carry `resultType` and, for discover/list/read, cache hints; 2025 results stay untouched. */
function shape<Scope>(core: Core<Scope>, spec: MethodSpec, modern: ModernMeta | undefined, result: JsonObject): JsonObject {
  if (!modern) return result;
  const cache = spec.cache ? core.settings.cache[spec.cache] : undefined;
  return cache ? { ...cache, ...result, resultType: 'complete' } : { ...result, resultType: 'complete' };
}

function clientFacts(modern: ModernMeta | undefined, connection: HandleOptions<unknown>['connection']) {
  if (modern) return { capabilities: modern.clientCapabilities as ClientCapabilities, info: modern.clientInfo as Implementation | undefined };
  return { capabilities: connection?.clientCapabilities ?? {}, info: connection?.clientInfo };
}

/** 2026: logs only when `_meta` asks for a level. 2025: everything until `logging/setLevel` says otherwise. */
function logThreshold(modern: ModernMeta | undefined, legacyLevel: string | undefined): number | undefined {
  if (modern) return modern.logLevel === undefined ? undefined : levelRank(modern.logLevel);
  return legacyLevel === undefined ? 0 : levelRank(legacyLevel);
}
