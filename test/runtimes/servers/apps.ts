/**
 * What every runtime serves in `npm run test:runtimes`: the conformance fixture (/mcp), the math
 * example (/math) and a probe (/probe) that records cancellations. Bundled by scripts/runtimes.mjs
 * against the built dist/ (imports of the package's sources are redirected there), so each runtime
 * runs the code users install.
 */
import { MiniMCP, getContext } from 'minimcp';
import { oauthResourceServer, type ResourceServer } from 'minimcp/auth';
import { createFetchHandler, type FetchHandler } from 'minimcp/http';
import { createConformanceFixture } from '../../../examples/conformance/fixture.js';
import { createMathServer } from '../../../examples/math/server.js';
import { PUBLIC_JWK, RUNTIME_ISSUER, RUNTIME_RESOURCE } from './auth-keys.js';

/** Tools that report, on a later request, what the runtime did to an earlier one. */
export function createProbe(): MiniMCP {
  // A long idle timeout: only the disconnect may cancel the waiting tool.
  const mcp = new MiniMCP({ name: 'runtime-probe', version: '1.0.0', idleTimeoutMs: 60_000, onError: () => {} });
  const cancelled = new Set<string>();
  const started = new Set<string>();
  const label = { type: 'object', properties: { label: { type: 'string' }, stream: { type: 'boolean' } }, required: ['label'] } as const;
  mcp.tool('wait_for_cancel', { description: 'Waits until the request is cancelled', input: label }, async ({ label: name, stream }, ctx) => {
    started.add(String(name));
    // A message first opens the SSE stream: a disconnect then reaches the handler through the stream too.
    if (stream) ctx.notify('notifications/message', { level: 'info', data: 'waiting' });
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    cancelled.add(String(name));
    return 'cancelled';
  });
  mcp.tool('observed', { description: 'Whether wait_for_cancel started and was cancelled', input: label }, ({ label: name }) =>
    JSON.stringify({ started: started.has(String(name)), cancelled: cancelled.has(String(name)) }));
  mcp.tool('context_method', { description: 'getContext() from inside a handler, or its error' }, () => {
    try {
      return getContext().method;
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  });
  return mcp;
}

export const createApps = (): Record<string, MiniMCP> => ({
  '/mcp': createConformanceFixture(),
  '/math': createMathServer(),
  '/probe': createProbe(),
});

/** The math example behind minimcp/auth (/auth): JWTs checked with the runtime's own Web Crypto. */
export function createAuthApp(): { mcp: MiniMCP; auth: ResourceServer } {
  const mcp = createMathServer({ scopes: ({ kind }) => (kind === 'tool' ? ['mcp:tools'] : undefined) });
  const auth = oauthResourceServer({ issuer: RUNTIME_ISSUER, resource: RUNTIME_RESOURCE, jwks: { keys: [PUBLIC_JWK] }, scopes: ['mcp:tools'] });
  return { mcp, auth };
}

/** One fetch handler per path, for the Web-standard runtimes (Bun, Deno, workerd). */
export function createFetchApp(): FetchHandler<unknown> {
  // The probe's keep-alives are frequent: on workerd a disconnect surfaces only when a write fails.
  const handlers = new Map(Object.entries(createApps()).map(([path, mcp]) => [path, createFetchHandler(mcp, path === '/probe' ? { keepAliveMs: 200 } : {})]));
  const { mcp, auth } = createAuthApp();
  handlers.set('/auth', createFetchHandler(mcp, { auth }));
  return (request, init) => {
    const handler = handlers.get(new URL(request.url).pathname);
    return handler ? handler(request, init) : Promise.resolve(new Response('Not Found', { status: 404 }));
  };
}
