/**
 * The HTTP answers of the discovery paths: the card, its alias and the catalogs. Public by design:
 * answered before authentication and before the Origin check, open to any origin for GET (the
 * extension's CORS rules), cached (`Cache-Control`, an `ETag`, 304 on `If-None-Match`). No body is
 * read and nothing is kept per request, so an answer costs about what a 404 does.
 */
import type { Exchange, HeaderMap } from '../exchange.js';
import { refuse } from '../refusals.js';
import type { DiscoveryKind, ServerCard } from './server-card.js';

const ALLOW = 'GET, HEAD, OPTIONS';
const PREFLIGHT: HeaderMap = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': ALLOW,
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-max-age': '600',
};

/** The path of a request target, without its query. */
export const pathOf = (target: string): string => {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
};

/** Whether an `If-None-Match` list names this tag (weak comparison, RFC 9110 §13.1.2). */
export function matchesTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

export function serveDiscovery(card: ServerCard, kind: DiscoveryKind, ex: Exchange<unknown>): void {
  const method = ex.method;
  if (method === 'OPTIONS') return ex.respond(204, PREFLIGHT, undefined);
  if (method !== 'GET' && method !== 'HEAD') {
    return refuse(ex, 405, -32600, 'Method Not Allowed: the server card is read with GET', { allow: ALLOW });
  }
  const found = card.answer(kind, pathOf(ex.target()), ex.get('host'));
  if (found === undefined) return refuse(ex, 404, -32600, 'Not Found: the catalog needs the card option url');
  const { document, perHost } = found;
  const headers: Record<string, string> = {
    'content-type': document.type,
    'cache-control': card.maxAge,
    etag: document.etag,
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'ETag',
  };
  if (perHost) headers.vary = 'Host';
  if (matchesTag(ex.get('if-none-match'), document.etag)) {
    delete headers['content-type'];
    return ex.respond(304, headers, undefined);
  }
  if (method === 'HEAD') headers['content-length'] = document.bytes; // what the GET would send
  ex.respond(200, headers, method === 'HEAD' ? undefined : document.body);
}
