/**
 * One server's card and catalogs, checked at start-up: the documents each discovery path answers.
 * A configured `url` makes them fixed; without one, only loopback hosts get a remote (see
 * ServerCardOptions.url), so a cached public document never carries a Host nobody vouched for.
 */
import { intOption } from '../../../option-checks.js';
import type { Implementation } from '../../../protocol/mcp-types.js';
import { cardProblem } from './check.js';
import { aiCatalog, buildCard, CARD_TYPE, cardUrlOf, documentOf, mcpCatalog, type CardDocument } from './document.js';
import type { ServerCardOptions } from './options.js';
import { secretProblem } from './secrets.js';

export type DiscoveryKind = 'card' | 'alias' | 'mcp-catalog' | 'ai-catalog';

export const CARD_SUFFIX = '/server-card';
/** The site-wide paths: the catalogs (not settled yet, so both) and the alias some crawlers look at. */
export const WELL_KNOWN: ReadonlyMap<string, DiscoveryKind> = new Map([
  ['/.well-known/mcp/catalog.json', 'mcp-catalog'],
  ['/.well-known/ai-catalog.json', 'ai-catalog'],
  ['/.well-known/mcp/server-card.json', 'alias'],
]);

interface Documents {
  readonly card: CardDocument;
  readonly catalogs: Partial<Record<'mcp-catalog' | 'ai-catalog', CardDocument>>;
}

const LOOPBACK = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;
const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;
const MAX_ORIGINS = 32;

function flag(options: ServerCardOptions, name: 'mcpCatalog' | 'aiCatalog' | 'wellKnownAlias', fallback: boolean): boolean {
  const value = options[name] ?? fallback;
  if (typeof value !== 'boolean') throw new TypeError(`HTTP option card.${name} must be a boolean, got ${String(value)}`);
  return value;
}

export class ServerCard {
  readonly maxAge: string;
  readonly #info: Implementation;
  readonly #options: ServerCardOptions;
  readonly #kinds = new Set<DiscoveryKind>(['card']);
  /** The MCP endpoint's path when the handler knows it (serve()); catalogs built from a loopback Host need it. */
  readonly #endpointPath: string | undefined;
  /** With a configured URL: everything, once. */
  readonly #fixed: Documents | undefined;
  /** Without one: the card with no remote, for hosts that are not loopback. */
  readonly #bare: CardDocument;
  readonly #loopback = new Map<string, Documents>();

  constructor(info: Implementation, options: ServerCardOptions, endpointPath?: string) {
    if (typeof options !== 'object' || options === null) throw new TypeError('HTTP option card must be an object with at least a name ("namespace/name")');
    this.#info = info;
    this.#options = options;
    this.#endpointPath = endpointPath;
    this.maxAge = `public, max-age=${intOption(options, 'maxAgeSeconds', 3600, { owner: 'HTTP option card', min: 0 })}`;
    if (flag(options, 'mcpCatalog', true)) this.#kinds.add('mcp-catalog');
    if (flag(options, 'aiCatalog', true)) this.#kinds.add('ai-catalog');
    if (flag(options, 'wellKnownAlias', false)) this.#kinds.add('alias');
    this.#checkPublisher();
    const url = options.url;
    if (url !== undefined && typeof url !== 'string') throw new TypeError('HTTP option card.url must be a string (the public URL of the MCP endpoint)');
    // Checked with a stand-in remote when none is configured, so headers and variables are checked too.
    this.#check(buildCard(info, options, url ?? 'http://localhost/mcp'));
    const secret = secretProblem(options.headers, options.variables);
    if (secret !== undefined) throw new TypeError(`HTTP option card: ${secret}`);
    this.#bare = documentOf(buildCard(info, options, undefined), CARD_TYPE);
    this.#fixed = url === undefined ? undefined : this.#documents(url);
  }

  /** Which document a request path (no query) asks for, if any. */
  kindOf(path: string): DiscoveryKind | undefined {
    const kind = path.endsWith(CARD_SUFFIX) ? 'card' : WELL_KNOWN.get(path);
    return kind !== undefined && this.#kinds.has(kind) ? kind : undefined;
  }

  /**
   * The document for a request: `path` is the request's (no query), `host` its Host header. Undefined
   * when there is none to give (a catalog, with no URL to point at). `perHost`: it was built from the Host.
   */
  answer(kind: DiscoveryKind, path: string, host: string | undefined): { document: CardDocument; perHost: boolean } | undefined {
    const fixed = this.#fixed;
    if (fixed !== undefined) return { document: kind === 'card' || kind === 'alias' ? fixed.card : fixed.catalogs[kind]!, perHost: false };
    const endpoint = kind === 'card' ? path.slice(0, -CARD_SUFFIX.length) : this.#endpointPath;
    if (host === undefined || !LOOPBACK.test(host) || endpoint === undefined) {
      return kind === 'card' || kind === 'alias' ? { document: this.#bare, perHost: false } : undefined;
    }
    const documents = this.#forOrigin(`http://${host.toLowerCase()}`, endpoint);
    return { document: kind === 'card' || kind === 'alias' ? documents.card : documents.catalogs[kind]!, perHost: true };
  }

  #forOrigin(origin: string, endpoint: string): Documents {
    const remote = origin + (endpoint === '' ? '/' : endpoint);
    let documents = this.#loopback.get(remote);
    if (documents === undefined) {
      documents = this.#documents(remote);
      if (this.#loopback.size >= MAX_ORIGINS) this.#loopback.clear(); // many ports in turn: start over, stay bounded
      this.#loopback.set(remote, documents);
    }
    return documents;
  }

  #documents(remote: string): Documents {
    const card = buildCard(this.#info, this.#options, remote);
    this.#check(card);
    const catalogs: Documents['catalogs'] = {};
    const wanted = this.#kinds.has('mcp-catalog') || this.#kinds.has('ai-catalog');
    if (wanted) {
      const cardUrl = URL.canParse(remote) && !remote.includes('{') ? cardUrlOf(remote) : undefined;
      if (cardUrl === undefined) {
        throw new TypeError(`HTTP option card.url must be a URL the catalogs can point at (or set card.mcpCatalog and card.aiCatalog to false), got ${remote}`);
      }
      if (this.#kinds.has('mcp-catalog')) catalogs['mcp-catalog'] = mcpCatalog(this.#options, cardUrl);
      if (this.#kinds.has('ai-catalog')) catalogs['ai-catalog'] = aiCatalog(this.#options, cardUrl);
    }
    return { card: documentOf(card, CARD_TYPE), catalogs };
  }

  #check(card: Record<string, unknown>): void {
    const problem = cardProblem(card);
    if (problem !== undefined) throw new TypeError(`HTTP option card: the Server Card is not valid: ${problem}`);
  }

  #checkPublisher(): void {
    const publisher = this.#options.publisher;
    if (publisher !== undefined && (typeof publisher !== 'string' || !DOMAIN.test(publisher))) {
      throw new TypeError(`HTTP option card.publisher must be a domain name such as example.com, got ${String(publisher)}`);
    }
  }
}
