/** How a forwarded request ends early: cancelled by its caller, or not answered in time. */
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import type { PendingRequests } from './pending.js';
import { UpstreamUnavailable } from './types.js';

/**
 * Ties a request to its caller's signal: an abort sends `notifications/cancelled` upstream and ends
 * the wait at once with the abort's reason.
 */
export function forwardCancel(
  answer: Promise<JsonObject>,
  id: RequestId,
  signal: AbortSignal | undefined,
  pending: PendingRequests,
  notify: (message: JsonObject) => void,
): Promise<JsonObject> {
  if (signal === undefined) return answer;
  const onAbort = () => {
    notify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'The caller cancelled' } });
    pending.fail(id, signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return answer.finally(() => signal.removeEventListener('abort', onAbort));
}

/** The answer, or UpstreamUnavailable after `ms`. */
export function withinTime<T>(answer: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new UpstreamUnavailable(`${message} within ${ms} ms`)), ms);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}
