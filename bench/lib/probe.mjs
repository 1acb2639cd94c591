/** Waits until an HTTP server answers a benchmark tools/call correctly (start-up and cold start). */
import { Connection, postBytes } from '../load/http-client.mjs';
import { callBody, checkHttpAnswer } from '../load/validate.mjs';

/**
 * Retries every `retryMs` until a valid answer or `timeoutMs`; resolves { ok, ms, error } where ms
 * is measured from `since` (a performance.now() value).
 */
export async function probe({ port, path, headers, tool = 'noop', expected = 'ok', retryMs = 2, timeoutMs = 15_000, since = performance.now() }) {
  let last = 'no answer';
  for (let id = 1; performance.now() - since < timeoutMs; id++) {
    const conn = new Connection('127.0.0.1', port);
    const res = await new Promise((resolve) =>
      conn.send(postBytes('127.0.0.1', port, path, headers, callBody(id, tool, false)), (error, r) => resolve(error ?? r)),
    );
    conn.close();
    if (!(res instanceof Error)) {
      const wrong = res.status === 200 ? checkHttpAnswer(res.body, res.type.startsWith('text/event-stream'), id, expected, false) : `HTTP ${res.status}`;
      if (!wrong) return { ok: true, ms: performance.now() - since };
      last = wrong;
    } else last = res.message;
    await new Promise((r) => setTimeout(r, retryMs));
  }
  return { ok: false, ms: NaN, error: last };
}
