/**
 * What a request becomes on the wire: a result, an error, or nothing. The one place where anything
 * thrown turns into a protocol error, and where 2026 results get their `resultType`.
 */
import type { Context } from '../context/context.js';
import type { CacheSettings, Core, Outcome, RequestInfo } from '../core.js';
import { ErrorCode, InsufficientScopeError, McpError, UserError, clientErrorText, internalError } from '../protocol/errors.js';
import { errorResponse, resultResponse, type JsonObject, type RequestId } from '../protocol/jsonrpc.js';

/** A notification, a client response, or a request the client cancelled: nothing to send. */
export const NO_REPLY: Outcome = { reply: undefined, status: 202 };

export function errorOutcome(id: RequestId | null, error: McpError): Outcome {
  const outcome: Outcome = { reply: errorResponse(id, error) as unknown as JsonObject, status: error.httpStatus ?? 200 };
  if (error instanceof InsufficientScopeError) outcome.scopes = error.scopes; // HTTP names them in its 403 challenge
  return outcome;
}

export const resultOutcome = (id: RequestId, result: JsonObject): Outcome =>
  ({ reply: resultResponse(id, result) as unknown as JsonObject, status: 200 });

/** Maps anything thrown to a protocol error; unexpected errors are logged, never sent with a stack. */
export function toMcpError<Scope>(core: Core<Scope>, error: unknown, request: RequestInfo, modern: boolean): McpError {
  try {
    if (error instanceof McpError) return modern ? modernize(error) : error;
    if (error instanceof UserError) return internalError(String(error.message)); // meant for the client: not a fault to log
    core.reportError(error, request);
    return core.settings.debug && error instanceof Error ? internalError(`Internal error: ${error.message}`) : internalError(clientErrorText(error, core.settings, 'Internal error'));
  } catch {
    return internalError('Internal error'); // a hostile thrown value (a Proxy, a throwing getter)
  }
}

/** The one place a failed request becomes an error reply: mapped, reported to the hooks, answered. */
export function failureOutcome<Scope>(core: Core<Scope>, id: RequestId, error: unknown, request: RequestInfo, modern: boolean, ctx: Context<Scope> | undefined): Outcome {
  const mcpError = toMcpError(core, error, request, modern);
  for (const hook of core.hooks) {
    try {
      hook.onError?.(request, mcpError, ctx);
    } catch (hookError) {
      core.reportError(hookError, request); // a broken logging hook must not cost the answer
    }
  }
  return errorOutcome(id, mcpError);
}

/** 2026 clients never see the retired codes: -32002 becomes -32602 (same data), -32042 becomes -32603. */
function modernize(error: McpError): McpError {
  if (error.code === ErrorCode.ResourceNotFoundRetired) return new McpError(ErrorCode.InvalidParams, error.message, error.data);
  if (error.code === ErrorCode.UrlElicitationRequired) return internalError(error.message);
  return error;
}

/** 2026 results carry `resultType` and, for discover/list/read, cache hints; 2025 results stay untouched. */
export function shape(settings: CacheSettings, cache: keyof CacheSettings | undefined, modern: boolean, result: JsonObject): JsonObject {
  if (!modern) return result;
  const hint = cache ? settings[cache] : undefined;
  return hint ? { ...hint, ...result, resultType: 'complete' } : { ...result, resultType: 'complete' };
}
