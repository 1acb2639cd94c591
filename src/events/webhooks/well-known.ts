/**
 * Verification by a receiver-published document (SEP-3415 "Endpoint verification", option 4): the
 * callback's https origin serves `/.well-known/mcp-webhook-receiver.json` = `{"receivers":["/hooks/"]}`,
 * the path prefixes under it that accept deliveries. Fetched over the same hardened path as deliveries
 * (checked address, no redirects, one deadline, at most 16 KiB read), cached per origin for 10 minutes.
 */
import { post, type PostOptions } from './post.js';

const PATH = '/.well-known/mcp-webhook-receiver.json';
const CACHE_MS = 600_000;
const MAX_ORIGINS = 1_000;
const MAX_BYTES = 16 * 1024;

export type ReceiverDocuments = Map<string, { until: number; prefixes: readonly string[] }>;

/** Whether the callback URL's origin declares its path a receiver. Any failure means no. */
export async function receiverDocumentCovers(url: URL, options: PostOptions, cache: ReceiverDocuments, now: number): Promise<boolean> {
  let entry = cache.get(url.origin);
  if (entry === undefined || entry.until <= now) {
    entry = { until: now + CACHE_MS, prefixes: await fetchPrefixes(url, options) };
    cache.delete(url.origin);
    cache.set(url.origin, entry);
    while (cache.size > MAX_ORIGINS) cache.delete(cache.keys().next().value!);
  }
  const path = url.pathname;
  return entry.prefixes.some((prefix) => path.startsWith(prefix) && (prefix.endsWith('/') || path.length === prefix.length || path[prefix.length] === '/'));
}

async function fetchPrefixes(url: URL, options: PostOptions): Promise<readonly string[]> {
  const result = await post(new URL(PATH, url.origin), { accept: 'application/json' }, '', { ...options, method: 'GET', maxResponseBytes: MAX_BYTES + 1 });
  if ('failed' in result || result.status !== 200 || result.body.length > MAX_BYTES) return [];
  try {
    const document = JSON.parse(result.body.toString('utf8')) as { receivers?: unknown };
    if (!Array.isArray(document.receivers)) return [];
    return document.receivers.filter((prefix): prefix is string => typeof prefix === 'string' && prefix.startsWith('/') && prefix.length <= 2_048).slice(0, 100);
  } catch {
    return [];
  }
}
