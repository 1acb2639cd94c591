/**
 * What a request becomes on the wire: a result, an error, or nothing. The one place where anything
 * thrown turns into a protocol error, and where 2026 results get their `resultType`.
 */
import type { Context } from '../context/context.js';
import type { CacheSettings, Core, RequestInfo } from './core.js';
import type { Outcome } from '../transport.js';
import type { Revision } from '../protocol/revisions/revision.js';
import { InsufficientScopeError, McpError, UserError, clientErrorText, internalError } from '../protocol/errors.js';
import { BoundReached, firstTimeReached } from '../state/bounds.js';
import { errorResponse, resultResponse, type JsonObject, type RequestId } from '../protocol/jsonrpc.js';
import type { CacheHint } from '../protocol/mcp-types.js';

/** A notification, a client response, or a request the client cancelled: nothing to send. */
export const NO_REPLY: Outcome = { reply: undefined, status: 202 };

export function errorOutcome(id: RequestId | null, error: McpError): Outcome {
  const outcome: Outcome = { reply: errorResponse(id, error), status: error.httpStatus ?? 200 };
  if (error instanceof InsufficientScopeError) outcome.scopes = error.scopes; // HTTP names them in its 403 challenge
  return outcome;
}

export const resultOutcome = (id: RequestId, result: JsonObject): Outcome =>
  ({ reply: resultResponse(id, result), status: 200 });

/** Maps anything thrown to a protocol error; unexpected errors are logged, never sent with a stack. */
export function toMcpError<Scope>(core: Core<Scope>, error: unknown, request: RequestInfo, revision: Revision): McpError {
  try {
    if (error instanceof McpError) {
      if (error instanceof BoundReached && firstTimeReached(core, error)) core.reportError(error, request); // once per principal and bound
      return revision.wireError(error);
    }
    if (error instanceof UserError) return internalError(String(error.message)); // meant for the client: not a fault to log
    core.reportError(error, request);
    return core.settings.debug && error instanceof Error ? internalError(`Internal error: ${error.message}`) : internalError(clientErrorText(error, core.settings, 'Internal error'));
  } catch {
    return internalError('Internal error'); // a hostile thrown value (a Proxy, a throwing getter)
  }
}

/** The one place a failed request becomes an error reply: mapped, reported to the hooks, answered. */
export function failureOutcome<Scope>(core: Core<Scope>, id: RequestId, error: unknown, request: RequestInfo, revision: Revision, ctx: Context<Scope> | undefined): Outcome {
  const mcpError = toMcpError(core, error, request, revision);
  for (const hook of core.hooks) {
    try {
      hook.onError?.(request, mcpError, ctx);
    } catch (hookError) {
      core.reportError(hookError, request); // a broken logging hook must not cost the answer
    }
  }
  return errorOutcome(id, mcpError);
}

/** The cache hint of a method (a key of the server's settings) or of a resource (its own hint), if any. */
export const cacheHint = (settings: CacheSettings, cache: keyof CacheSettings | CacheHint | undefined): CacheHint | undefined =>
  typeof cache === 'string' ? settings[cache] : cache;
