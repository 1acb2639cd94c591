/**
 * The card and the two catalogs as JSON text with their ETag: built once when the card's URL is
 * configured, else per loopback origin (a bounded few). The card comes from the server's facts and the
 * revisions served, never from a second copy of them.
 */
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from '../../../protocol/versions.js';
import { sha256Bytes } from '../../../platform/sha256.js';
import { toBase64url } from '../../../platform/base64url.js';
import type { Implementation } from '../../../protocol/mcp-types.js';
import { CARD_SCHEMA_URL } from './check.js';
import type { ServerCardOptions } from './options.js';

export const CARD_TYPE = 'application/mcp-server-card+json';
/** Every revision the HTTP transport answers, newest first: what `server/discover` and `initialize` negotiate. */
export const SERVED_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];

export interface CardDocument {
  readonly body: string;
  /** The body's length in bytes, for `Content-Length` on HEAD. */
  readonly bytes: string;
  readonly etag: string;
  readonly type: string;
}

const encoder = new TextEncoder();

export function documentOf(value: unknown, type: string): CardDocument {
  const body = JSON.stringify(value);
  const bytes = encoder.encode(body);
  return { body, type, bytes: String(bytes.length), etag: `"${toBase64url(sha256Bytes(bytes)).slice(0, 27)}"` };
}

/** The card as an object; `remote` is the MCP endpoint's public URL (none: a card without `remotes`). */
export function buildCard(info: Implementation, options: ServerCardOptions, remote: string | undefined): Record<string, unknown> {
  const card = {
    $schema: CARD_SCHEMA_URL,
    name: options.name,
    version: info.version,
    description: options.description ?? info.description,
    title: info.title,
    websiteUrl: info.websiteUrl,
    repository: options.repository,
    icons: info.icons,
    remotes: remote === undefined ? undefined : [{
      type: 'streamable-http',
      url: remote,
      headers: options.headers,
      variables: options.variables,
      supportedProtocolVersions: SERVED_VERSIONS,
    }],
    _meta: options._meta,
  };
  return JSON.parse(JSON.stringify(card)); // a plain copy without the absent fields
}

/** `<mcp-url>/server-card`, built on the URL's path: no query or fragment, no doubled slash. */
export function cardUrlOf(remote: string): string {
  const url = new URL(remote);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/server-card`;
}

/** The publisher's domain for `urn:air:` identifiers: the name's reverse-DNS namespace, turned around. */
export const publisherOf = (options: ServerCardOptions): string =>
  options.publisher ?? options.name.slice(0, options.name.indexOf('/')).split('.').reverse().join('.');

/** The MCP Catalog (`/.well-known/mcp/catalog.json`, specVersion "draft"). */
export function mcpCatalog(options: ServerCardOptions, cardUrl: string): CardDocument {
  const name = options.name.slice(options.name.indexOf('/') + 1);
  const entry = { identifier: `urn:air:${publisherOf(options)}:${name}`, type: CARD_TYPE, url: cardUrl };
  return documentOf({ specVersion: 'draft', entries: [entry] }, 'application/json');
}

/** The AI Catalog (`/.well-known/ai-catalog.json`, specVersion "1.0", the `mcp` namespace). */
export function aiCatalog(options: ServerCardOptions, cardUrl: string): CardDocument {
  const name = options.name.slice(options.name.indexOf('/') + 1);
  const entry = { identifier: `urn:air:${publisherOf(options)}:mcp:${name}`, type: CARD_TYPE, url: cardUrl };
  return documentOf({ specVersion: '1.0', entries: [entry] }, 'application/ai-catalog+json');
}
