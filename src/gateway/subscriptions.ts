/**
 * Resource subscriptions upstream: when a caller subscribes to a URI an upstream serves (2025
 * `resources/subscribe`, 2026 `subscriptions/listen` with `resourceSubscriptions`), the gateway
 * subscribes upstream once, so the upstream sends the updates the gateway then publishes to its own
 * subscribers. Upstream subscriptions are kept for the gateway's life, at most 10 000 per upstream.
 */
import type { Hooks } from '../request/core.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { Upstream } from './types.js';

const MAX_SUBSCRIPTIONS = 10_000;

/** Hooks that subscribe upstream to each URI `original` maps to one of its own (undefined: not served there). */
export function subscriptionHooks(upstream: Upstream, original: (uri: string) => string | undefined, report: (error: unknown) => void): { hooks: Hooks<unknown>; stop(): void } {
  const subscribed = new Set<string>();
  let stopped = false;
  const subscribe = (uri: unknown) => {
    const own = typeof uri === 'string' && !stopped ? original(uri) : undefined;
    if (own === undefined || subscribed.has(own) || subscribed.size >= MAX_SUBSCRIPTIONS) return;
    subscribed.add(own);
    upstream.request('resources/subscribe', { uri: own }).catch((error: unknown) => {
      subscribed.delete(own);
      report(error);
    });
  };
  const hooks: Hooks<unknown> = {
    before(request) {
      if (request.method === 'resources/subscribe') subscribe(request.params?.uri);
      else if (request.method === 'subscriptions/listen') {
        const filter = request.params?.notifications;
        const uris = isObject(filter) && Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions : [];
        for (const uri of uris.slice(0, 100)) subscribe(uri);
      }
    },
  };
  // Hooks cannot be removed from a server: a closed proxy's stay, and do nothing.
  return { hooks, stop: () => void (stopped = true) };
}
