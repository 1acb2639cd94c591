/**
 * A smaller body limit for a method with a bound of its own, named before the body by a 2026
 * request's `Mcp-Method` header. `subscriptions/listen` keeps its params within MAX_LISTEN_PARAMS_CHARS
 * characters (a listen stream holds its request for its whole life), so a larger body could only be
 * parsed to be refused: it is refused unread instead (413), which costs the server nothing. The
 * header is the client's word; one that names another method than the body is refused anyway (-32020).
 */
import { MAX_LISTEN_PARAMS_CHARS } from '../../methods/subscriptions-listen.js';
import type { Exchange } from './exchange.js';

/**
 * The most bytes a listen body can hold and still pass: six bytes per character of params (the
 * longest a character is written in JSON, `\u0000`), plus the envelope (id, method) and whitespace.
 */
export const MAX_LISTEN_BODY_BYTES = 6 * MAX_LISTEN_PARAMS_CHARS + 64 * 1024;

/** The body limit of this request: `maxBodyBytes`, or less when its method allows less. */
export function bodyLimitOf(ex: Exchange<unknown>, maxBodyBytes: number): number {
  return ex.get('mcp-method') === 'subscriptions/listen' ? Math.min(maxBodyBytes, MAX_LISTEN_BODY_BYTES) : maxBodyBytes;
}
