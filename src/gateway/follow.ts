/**
 * The stream on which a remote upstream tells what concerns the whole connection (list_changed,
 * resources/updated): 2025, the session's GET stream; 2026, a `subscriptions/listen` request for
 * the list changes. Opened again after it ends, with a growing delay; not at all when the upstream
 * answers that it serves none (405, 404, an error).
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { Backoff } from './backoff.js';
import { eventData } from './sse-reader.js';

export interface FollowHost {
  /** Opens the stream: the response, or undefined when the upstream serves none. */
  open(signal: AbortSignal): Promise<Response | undefined>;
  receive(message: JsonObject): void;
  readonly maxBytes: number;
}

/** Follows the upstream's stream until `signal` aborts. */
export async function follow(host: FollowHost, signal: AbortSignal): Promise<void> {
  const backoff = new Backoff(1_000, 30_000, 60_000);
  while (!signal.aborted) {
    const opened = Date.now();
    try {
      const response = await host.open(signal);
      if (response === undefined) return;
      if (response.body === null || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        await response.body?.cancel();
        return; // a JSON answer (an error, or no stream served): nothing to follow
      }
      for await (const data of eventData(response.body, host.maxBytes)) {
        let message: unknown;
        try {
          message = JSON.parse(data);
        } catch {
          continue;
        }
        if (isObject(message)) host.receive(message);
      }
    } catch {
      // a broken stream is opened again below
    }
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, backoff.next(Date.now() - opened)).unref?.());
  }
}
