/** Cloudflare Workers (workerd): the apps as a module worker; `waitUntil` keeps work after the response alive. */
import { createFetchApp } from './apps.js';

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

const app = createFetchApp();
export default {
  fetch: (request: Request, _env: unknown, ctx: ExecutionContext): Promise<Response> =>
    app(request, { waitUntil: (promise) => ctx.waitUntil(promise) }),
};
