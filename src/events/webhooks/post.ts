/**
 * One POST to a callback over the hardened path: the address is resolved and checked here, the socket
 * connects to exactly that address (a `lookup` that answers with it: no second resolution), TLS SNI
 * and `Host` stay the URL's host, no redirect is followed, the whole attempt has one deadline, and at
 * most `maxResponseBytes` of the answer are read before the socket is destroyed.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { type EgressPolicy, pickAddress } from './egress.js';
import type { FailureCategory } from './errors.js';

export interface PostOptions {
  policy: EgressPolicy;
  /** The trusted CAs when extra ones were given (the system roots included: `ca` replaces them). */
  ca: readonly string[] | undefined;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Aborts the attempt (the engine closing): it ends as a timeout and nothing is recorded for it. */
  signal?: AbortSignal;
  /** GET for the receiver's well-known document (no body sent); POST otherwise. */
  method?: 'GET' | 'POST';
}

/** What came back: a status and the first bytes of the body, or a failure category. */
export type PostResult = { status: number; body: Buffer } | { failed: FailureCategory };

export async function post(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const picked = await pickAddress(url, options.policy);
  if (picked === 'refused') return { failed: 'connection_refused' };
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [picked]);
    else callback(null, picked.address, picked.family);
  };
  const payload = options.method === 'GET' ? undefined : Buffer.from(body);
  const secure = url.protocol === 'https:';
  const requestOptions: https.RequestOptions = {
    method: options.method ?? 'POST',
    headers: payload === undefined ? headers : { ...headers, 'content-length': String(payload.length) },
    lookup,
    agent: false, // a fresh connection per attempt: a pooled socket would skip this attempt's address check
    ...(secure && options.ca ? { ca: options.ca as string[] } : {}),
  };
  return new Promise<PostResult>((resolve) => {
    const request = (secure ? https : http).request(url, requestOptions);
    const timer = setTimeout(() => finish({ failed: 'timeout' }), options.timeoutMs);
    const onAbort = () => finish({ failed: 'timeout' });
    function finish(result: PostResult): void {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort); // the engine's signal outlives every attempt
      request.destroy();
      resolve(result);
    }
    request.on('error', (error) => finish({ failed: classify(error) }));
    if (options.signal?.aborted) return finish({ failed: 'timeout' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (options.maxResponseBytes <= 0) return finish({ status, body: Buffer.alloc(0) });
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        const room = options.maxResponseBytes - length;
        chunks.push(chunk.subarray(0, Math.max(0, room)));
        length += chunk.length;
        if (length >= options.maxResponseBytes) finish({ status, body: Buffer.concat(chunks) }); // enough read: the rest is never taken in
      });
      response.on('end', () => finish({ status, body: Buffer.concat(chunks) }));
      response.on('error', () => finish({ failed: 'connection_refused' }));
    });
    request.end(payload);
  });
}

/** The category of a status that is not a success: redirects count as the endpoint refusing this URL. */
export function statusCategory(status: number): FailureCategory {
  return status >= 500 ? 'http_5xx' : 'http_4xx';
}

function classify(error: Error & { code?: string }): FailureCategory {
  const code = error.code ?? '';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_OSSL)/.test(code) || /SSL|TLS|certificate/i.test(error.message)) return 'tls_error';
  return 'connection_refused';
}
