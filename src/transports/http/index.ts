/** `minimcp/http`: the runtime-neutral Streamable HTTP transport (Web Request/Response). */
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions, type FetchInit } from './fetch-handler.js';
export type { DnsRebindingOptions, HttpOptions, ScopeFacts } from './options.js';
export type { CorsOptions } from './cors.js';
export type { ServerCardHeader, ServerCardInput, ServerCardOptions } from './card/options.js';
