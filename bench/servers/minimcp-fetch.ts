/**
 * MiniMCP on Bun (Bun.serve) or Deno (Deno.serve) through its fetch handler, JSON path, on
 * 127.0.0.1:$PORT/mcp: the per-runtime benchmark's counterpart of floor-fetch.mjs.
 */
import { createFetchHandler } from 'minimcp/http';
import { createBenchServer } from './minimcp-tools.js';

type Handler = (request: Request) => Promise<Response>;
declare const Bun: { serve(options: { port: number; hostname: string; fetch: Handler }): unknown } | undefined;
declare const Deno: { env: { get(name: string): string | undefined }; serve(options: { port: number; hostname: string; onListen(): void }, handler: Handler): unknown } | undefined;

const handler = createFetchHandler(createBenchServer(), { mode: 'json' });
const fetch: Handler = (request) => handler(request);
if (typeof Bun !== 'undefined') Bun.serve({ port: Number(process.env.PORT ?? 3000), hostname: '127.0.0.1', fetch });
else Deno?.serve({ port: Number(Deno.env.get('PORT') ?? 3000), hostname: '127.0.0.1', onListen() {} }, fetch);
