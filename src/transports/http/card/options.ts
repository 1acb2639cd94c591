/**
 * The `card` option of every HTTP entry: what a Server Card (SEP-2127, the v1 shape of the
 * `experimental-ext-server-card` repository) says beyond the server's own facts. The card's version,
 * title, website and icons are the server's (`new MiniMCP({ version, title, ... })`) and its protocol
 * revisions are the ones served, so the card cannot drift from `server/discover`.
 */

/** A value a user supplies or the card presets: a URL variable or a header (the card's `Input`). */
export interface ServerCardInput {
  description?: string;
  isRequired?: boolean;
  /** A secret (a token, a password): clients keep it safe. Never put the secret itself in `value`. */
  isSecret?: boolean;
  format?: 'string' | 'number' | 'boolean' | 'filepath';
  default?: string;
  placeholder?: string;
  /** A preset value; `{name}` parts are filled from `variables`. */
  value?: string;
  choices?: string[];
}

/** A header a client sends to reach the server (the card's `KeyValueInput`). */
export interface ServerCardHeader extends ServerCardInput {
  name: string;
  variables?: Record<string, ServerCardInput>;
}

export interface ServerCardOptions {
  /** The card's name: `namespace/name`, the namespace in reverse-DNS form ("io.github.acme/weather"). */
  name: string;
  /** What the server does, 1-100 characters. Default: the server's `description`. */
  description?: string;
  /**
   * The public URL of the MCP endpoint ("https://mcp.example.com/mcp"): the card's `streamable-http`
   * remote, and where the catalogs say the card is (`<url>/server-card`). Set it in production.
   * Without it, only requests whose Host is a loopback name get a remote, built from that Host
   * (`http://localhost:3000/mcp`, for local development); other hosts get a card without `remotes`
   * and no catalogs: a public, cached document never repeats a Host header it cannot trust.
   */
  url?: string | undefined; // `| undefined`: `url: process.env.PUBLIC_URL` compiles (absent means derived)
  /** Headers a client must (or may) send, e.g. an `Authorization` header marked `isSecret`. */
  headers?: ServerCardHeader[];
  /** Variables of a URL template (`https://{tenant}.example.com/mcp`). */
  variables?: Record<string, ServerCardInput>;
  /** Where the source is ("github" and its URL). */
  repository?: { url: string; source: string; subfolder?: string; id?: string };
  /** Vendor data, with reverse-DNS keys. */
  _meta?: Record<string, unknown>;
  /** `Cache-Control: public, max-age=N` of the card and the catalogs. Default 3600. */
  maxAgeSeconds?: number;
  /** Serve `/.well-known/mcp/catalog.json` (the MCP Catalog draft). Default true. */
  mcpCatalog?: boolean;
  /** Serve `/.well-known/ai-catalog.json` (the AI Catalog). Default true. */
  aiCatalog?: boolean;
  /** Serve the card at `/.well-known/mcp/server-card.json` too, for crawlers that look there. Default false. */
  wellKnownAlias?: boolean;
  /** The publisher's domain in the catalogs' `urn:air:` identifiers. Default: the name's namespace reversed. */
  publisher?: string;
}
