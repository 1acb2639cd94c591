/** Bun: the apps on Bun.serve. Prints its base URL. */
import { createFetchApp } from './apps.js';

declare const Bun: {
  serve(options: { port: number; hostname: string; idleTimeout: number; fetch: (request: Request) => Promise<Response> }): { url: URL };
};

const app = createFetchApp();
// Bun closes a connection idle for 10 s by default; SSE keep-alives come every 15 s, so allow longer.
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 60, fetch: (request) => app(request) });
console.log(server.url.origin);
