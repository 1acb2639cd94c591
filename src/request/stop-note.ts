/**
 * The one debug line for a request that stopped without failing (issue 26 item 6): a cancel, an idle
 * timeout, a shutdown or a closed connection is normal life for a server, so it is not an error with a
 * stack but a line naming what stopped and why.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { CancelledError } from '../state/cancels.js';
import type { Interrupt } from './execution.js';

/** `tools/call "add"`, `resources/read "file:///x"`, or the bare method. */
export function requestLabel(method: string, params: JsonObject): string {
  const target = method === 'resources/read' ? params.uri : method === 'tools/call' || method === 'prompts/get' ? params.name : undefined;
  return typeof target === 'string' ? `${method} ${JSON.stringify(target)}` : method;
}

/** The sentence for an interrupt; undefined for MRTR's `input` (a round trip, not a stop). */
export function stopNote(method: string, params: JsonObject, why: Interrupt, reason: unknown, idleTimeoutMs: number): string | undefined {
  if (why === 'input') return undefined;
  const label = requestLabel(method, params);
  if (why === 'timeout') return `${label} timed out: no sign of life for ${idleTimeoutMs} ms (answered -32603; see ctx.resetTimeout())`;
  const text = reasonText(reason);
  if (reason instanceof CancelledError) return `${label} cancelled by the client${text ? `: ${text}` : ''}`;
  return `${label} stopped by the transport (shutdown or a closed connection)${text ? `: ${text}` : ''}`;
}

function reasonText(reason: unknown): string {
  try {
    return reason instanceof Error || (typeof reason === 'object' && reason !== null && 'message' in reason) ? String((reason as Error).message) : reason === undefined ? '' : String(reason);
  } catch {
    return '';
  }
}
