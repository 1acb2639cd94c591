/** The HTTP transport's options, shared by the fetch and node handlers, checked once into Settings. */
import type { ReplayStore } from '../../state/replay.js';
import { corsRule, type CorsOptions, type CorsRule } from './cors.js';
import { IdleSweeper } from '../../limits/concurrency.js';
import { DEFAULT_HOSTS, hostRule, type HostRule } from './origin.js';
import { intOption, type IntLimits } from '../../option-checks.js';
import type { HttpAuth } from './auth-gate.js';
import type { Implementation } from '../../protocol/mcp-types.js';
import type { ServerCardOptions } from './card/options.js';
import { ServerCard } from './card/server-card.js';
import type { AuthInfo } from '../../protocol/auth-info.js';
import { StoredEventBudget } from './stored-events.js';

export interface DnsRebindingOptions {
  /**
   * Host names allowed in `Host` (and in `Origin` unless allowedOrigins is set). An entry without a
   * port allows any port ("example.com"); with one it allows only that port ("example.com:8443").
   * Default: localhost, 127.0.0.1, [::1].
   */
  allowedHosts?: string[];
  /** Exact origins allowed ("https://app.example.com"). Default: http(s) origins of allowedHosts. */
  allowedOrigins?: string[];
}

export interface HttpOptions {
  /**
   * 'streamable' (default): JSON unless the handler sends something first, then SSE.
   * 'json': plain request/response; progress and logs are dropped, elicitation is unavailable (2025).
   */
  mode?: 'streamable' | 'json';
  /** Largest accepted body in bytes, enforced while reading. Default 4 MiB. */
  maxBodyBytes?: number;
  /**
   * Bytes of request bodies buffered at once, counted over every handler in the process; a body that
   * would pass it is refused with 503 and Retry-After. Default 64 MiB (16 bodies at the size limit).
   */
  maxBufferedBytes?: number;
  /**
   * A body not fully received this long after reading began is refused with 408 (a JSON-RPC error body,
   * `Connection: close`): a client dripping its body cannot hold a handler. Default 30 s.
   */
  bodyTimeoutMs?: number;
  /** Interval of `: keepalive` comments on open SSE streams. Default 15 s. */
  keepAliveMs?: number;
  /**
   * 2025 SSE streams (SEP-1699): the `retry:` sent with each stream's priming event, i.e. how long a
   * client waits before resuming a stream the server closed (`ctx.closeStream()`). Default 1000 ms.
   */
  sseRetryMs?: number;
  /**
   * The most bytes one SSE stream may hold unsent because its client does not read. Past it the
   * stream is closed (its handler cancelled, as on a disconnect) and a line is logged through
   * `onError`. Default 4 MiB.
   */
  maxStreamBacklogBytes?: number;
  /**
   * 2025 resumable streams whose response ended (the client left, or `ctx.closeStream()`): characters
   * of events one principal's handlers may write into them per second, with a burst of eight seconds'
   * worth. Past it their notifications (progress, logs) are dropped unserialized; replies and server
   * requests are always kept. Default 1 MiB (the burst, 8 MiB, is what the replay store keeps per principal).
   */
  storedEventCharsPerSecond?: number;
  /** Host / Origin allow-lists against DNS rebinding (on by default, loopback only); false turns it off. */
  dnsRebinding?: DnsRebindingOptions | false;
  /** CORS for browser clients on other origins (off by default); its origins also pass the Origin check. */
  cors?: CorsOptions;
  /** Seconds sent in `Retry-After` when the server is overloaded (503). Default 1. */
  retryAfterSeconds?: number;
  /**
   * OAuth 2.1 resource server: `oauthResourceServer({ issuer, resource, ... })` from minimcp/auth.
   * Every request needs a valid access token (401 with a challenge otherwise), its facts become
   * `ctx.auth` and its `iss`+`sub` the principal; the Protected Resource Metadata is served at
   * `auth.metadataPaths`. The `scope` factory runs after the token was verified and receives it
   * (`scope(request, { auth })`). See docs/authorization.md.
   */
  auth?: HttpAuth | undefined;
  /**
   * A Server Card (SEP-2127): `GET <mcp-url>/server-card` answers it, public even under `auth`, and
   * `/.well-known/mcp/catalog.json` and `/.well-known/ai-catalog.json` point at it. Off without this
   * option. Checked at start-up: a card its schema refuses throws, naming the field. See docs/http.md.
   */
  card?: ServerCardOptions;
  /** Log of unexpected transport failures (answered 500 without details). Default: stderr. */
  onError?: (error: unknown) => void;
}

/**
 * What the `scope` factory learns besides the request: the verified access token. It runs after
 * authentication, so under the `auth` option `auth` is always the token (typed so when the option is
 * given where the factory is); without the option it is undefined.
 */
export interface ScopeFacts<Auth extends HttpAuth | undefined = HttpAuth | undefined> {
  /** The verified token, as handlers read it in `ctx.auth`: `subject`, `scopes`, `claims`, `principal`... */
  readonly auth: [Auth] extends [HttpAuth] ? AuthInfo : AuthInfo | undefined;
}

/** Options checked and defaulted once per handler, read on every request. */
export interface Settings {
  readonly streamable: boolean;
  readonly maxBodyBytes: number;
  readonly maxBufferedBytes: number;
  /** Deadlines of bodies being read; one shared sweep, no timer per request. */
  readonly bodyDeadline: IdleSweeper;
  readonly keepAliveMs: number;
  readonly maxStreamBacklogBytes: number;
  readonly sseRetryMs: number;
  /** What one principal's handlers may write into streams whose response ended (per handler). */
  readonly storedEvents: StoredEventBudget;
  /** Events of closed 2025 streams, waiting for a resuming GET; one store per handler. */
  readonly events: ReplayStore;
  readonly hosts: HostRule | undefined;
  readonly cors: CorsRule | undefined;
  readonly retryAfter: string;
  readonly auth: HttpAuth | undefined;
  readonly card: ServerCard | undefined;
  readonly onError: (error: unknown) => void;
}

const HTTP: IntLimits = { owner: 'HTTP option' };

/**
 * `events`: the server's replay store (`mcp.state.replay`), shared by every handler of that server.
 * `server`: its facts (the card is built from them) and, when the handler knows it, the MCP path.
 */
export function resolveSettings(options: HttpOptions = {}, events: ReplayStore, server?: { info: Implementation; path?: string }): Settings {
  const mode = options.mode ?? 'streamable';
  if (mode !== 'streamable' && mode !== 'json') throw new TypeError(`HTTP option mode must be 'streamable' or 'json', got ${String(mode)}`);
  const dns = options.dnsRebinding;
  return {
    streamable: mode === 'streamable',
    maxBodyBytes: intOption(options, 'maxBodyBytes', 4 * 1024 * 1024, HTTP),
    maxBufferedBytes: intOption(options, 'maxBufferedBytes', 64 * 1024 * 1024, HTTP),
    bodyDeadline: new IdleSweeper(intOption(options, 'bodyTimeoutMs', 30_000, HTTP)),
    keepAliveMs: intOption(options, 'keepAliveMs', 15_000, HTTP),
    maxStreamBacklogBytes: intOption(options, 'maxStreamBacklogBytes', 4 * 1024 * 1024, HTTP),
    sseRetryMs: intOption(options, 'sseRetryMs', 1000, HTTP),
    storedEvents: new StoredEventBudget(intOption(options, 'storedEventCharsPerSecond', 1_048_576, HTTP)),
    events,
    hosts: dns === false ? undefined : hostRule(dns?.allowedHosts ?? DEFAULT_HOSTS, dns?.allowedOrigins),
    cors: corsRule(options.cors),
    retryAfter: String(intOption(options, 'retryAfterSeconds', 1, HTTP)),
    auth: checkAuth(options.auth),
    card: options.card === undefined || server === undefined ? undefined : new ServerCard(server.info, options.card, server.path),
    onError: options.onError ?? ((error) => console.error('[minimcp] http transport failed:', error)),
  };
}

function checkAuth(auth: HttpAuth | undefined): HttpAuth | undefined {
  if (auth === undefined) return undefined;
  const valid = typeof auth === 'object' && auth !== null && typeof auth.authenticate === 'function' &&
    typeof auth.metadataDocument === 'function' && typeof auth.insufficientScope === 'function' && Array.isArray(auth.metadataPaths);
  if (!valid) throw new TypeError('HTTP option auth must come from oauthResourceServer() (minimcp/auth) or implement HttpAuth');
  return auth;
}

/** The error logged when a stream is closed because its client stopped reading. */
export const backlogExceeded = (settings: Settings): Error =>
  new Error(`SSE stream closed: its client stopped reading and over ${settings.maxStreamBacklogBytes} bytes were waiting (maxStreamBacklogBytes)`);
