/** Deno: the apps on Deno.serve. Prints its base URL. */
import { createFetchApp } from './apps.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const app = createFetchApp();
Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(`http://127.0.0.1:${port}`) }, (request) => app(request));
