/**
 * What one message is, and where it goes: the core of `MiniMCP.route()`. A request becomes a `Call`;
 * a notification is acted on (cancel, initialized) and handed to a handler the server registered; a
 * client response goes to the 2025 server request waiting for it, for the same principal and
 * connection only. Never throws.
 */
import { loadCrypto } from '../signing/request-state.js';
import type { Core, NotificationSpec } from './core.js';
import type { MessageFacts, Outcome, OutcomeSink } from '../transport.js';
import { ErrorCode, McpError, internalError, invalidRequest } from '../protocol/errors.js';
import { parseJson, readEnvelope, type Envelope, type JsonObject, type JsonRpcErrorObject, type RequestId } from '../protocol/jsonrpc.js';
import { ownerKey } from '../state/answers.js';
import { cancelKey } from '../state/cancels.js';
import { Call } from './call.js';
import { NO_REPLY, errorOutcome } from './outcome.js';
import { rateKey, type RateLimited } from '../limits/rate-limit.js';

export function routeMessage<Scope>(core: Core<Scope>, message: unknown, facts: MessageFacts<Scope>, sink: OutcomeSink): Outcome | undefined {
  try {
    let value = message;
    if (typeof message === 'string') {
      const parsed = parseJson(message);
      if (!parsed.ok) return errorOutcome(null, parsed.error);
      value = parsed.value;
    }
    const envelope = readEnvelope(value);
    // Requests and notifications count; a client's response answers the server's own question and is never refused.
    if ((envelope.kind === 'request' || envelope.kind === 'notification') && core.rates !== undefined && facts.rateChecked !== true) {
      const checked = core.rates.check(rateKey(principalOf(core, facts), facts.auth), typeof message === 'string' ? message.length : 0);
      if (checked instanceof Promise) {
        void checked.then((refusal) => { // never rejects: a failing store lets the message through
          const outcome = refusal === undefined ? dispatch(core, envelope, facts, sink) : rateRefused(envelope, refusal);
          if (outcome !== undefined) sink.deliver(outcome);
        });
        return undefined;
      }
      if (checked !== undefined) return rateRefused(envelope, checked);
    }
    return dispatch(core, envelope, facts, sink);
  } catch (error) {
    core.reportError(error, undefined);
    return errorOutcome(null, new McpError(ErrorCode.InternalError, 'Internal error', undefined, 500));
  }
}

function dispatch<Scope>(core: Core<Scope>, envelope: Envelope, facts: MessageFacts<Scope>, sink: OutcomeSink): Outcome | undefined {
  try {
    switch (envelope.kind) {
      case 'invalid':
        return errorOutcome(envelope.id, envelope.error);
      case 'request':
        return new Call(core, envelope.id, envelope.method, envelope.params, facts, sink).run();
      case 'notification':
        onNotification(core, envelope.method, envelope.params, facts);
        return NO_REPLY;
      case 'response':
        return onResponse(core, envelope.id, envelope.result, envelope.error, facts, sink);
    }
  } catch (error) {
    core.reportError(error, undefined);
    return errorOutcome(null, new McpError(ErrorCode.InternalError, 'Internal error', undefined, 500));
  }
}

/** Past the rate limit, after parsing (no transport checked it first): a request gets the error, a notification nothing. */
const rateRefused = (envelope: Envelope, refusal: RateLimited): Outcome =>
  envelope.kind === 'request' ? errorOutcome(envelope.id, refusal) : NO_REPLY;

const principalOf = <Scope>(core: Core<Scope>, facts: MessageFacts<Scope>): string => facts.principal ?? core.principalOf(facts.scope, facts.auth);

/**
 * The connection a notification or client response belongs to: the transport's, or the session it
 * presented. null when it presented one that names no session of this principal: nothing matches.
 */
function connectionId<Scope>(core: Core<Scope>, facts: MessageFacts<Scope>, principal: string): string | undefined | null {
  if (facts.connection !== undefined || facts.session === undefined) return facts.connection?.id;
  // Without node:crypto loaded, this process minted no session: nothing here can belong to one.
  if (loadCrypto() !== undefined) return null;
  return core.sessions.open(facts.session, principal)?.id ?? null;
}

/** A client's answer to a 2025 server request: taken (no reply), or refused when nobody waits for it. */
function onResponse<Scope>(
  core: Core<Scope>, id: RequestId, result: JsonObject | undefined, error: JsonRpcErrorObject | undefined, facts: MessageFacts<Scope>, sink: OutcomeSink,
): Outcome | undefined {
  const principal = principalOf(core, facts);
  const connection = connectionId(core, facts, principal);
  const routed = connection !== null && core.state.answers.answer(id, ownerKey(principal, connection), result, error);
  if (typeof routed === 'boolean') return answered(routed, id);
  // A shared route answers later: the sink gets the outcome (a broken route is -32603, never a hang).
  routed.then((ok) => sink.deliver(answered(ok, id)), (failure: unknown) => {
    core.reportError(failure, undefined);
    sink.deliver(errorOutcome(id, internalError('Internal error: the answer could not be routed')));
  });
  return undefined;
}

function answered(ok: boolean, id: RequestId): Outcome {
  return ok ? NO_REPLY : errorOutcome(id, invalidRequest('Invalid Request: no request is waiting for this response'));
}

function onNotification<Scope>(core: Core<Scope>, method: string, params: JsonObject | undefined, facts: MessageFacts<Scope>): void {
  if (method === 'notifications/initialized') {
    if (facts.connection) facts.connection.initialized = true;
  } else if (method === 'notifications/cancelled') {
    const id = params?.requestId;
    const principal = typeof id === 'string' || typeof id === 'number' ? principalOf(core, facts) : undefined;
    const connection = principal === undefined ? null : connectionId(core, facts, principal);
    if (connection !== null) {
      const key = cancelKey(principal!, connection, id as RequestId);
      core.state.cancels.cancel(key, typeof params?.reason === 'string' ? params.reason : 'cancelled by the client');
    }
  }
  // Everything else (progress for our requests, roots/list_changed...) needs no action from a stateless
  // core, unless the server registered a handler for it.
  const spec = core.methods.notification(method);
  if (spec !== undefined) runNotification(core, spec, method, params ?? {}, facts);
}

function runNotification<Scope>(core: Core<Scope>, spec: NotificationSpec, method: string, params: JsonObject, facts: MessageFacts<Scope>): void {
  const request = { id: 0, method, params };
  try {
    const running = spec.run(core, params, { scope: facts.scope, principal: principalOf(core, facts) });
    if (running instanceof Promise) running.catch((error: unknown) => core.reportError(error, request));
  } catch (error) {
    core.reportError(error, request);
  }
}
