/**
 * CORS for browser clients on another origin (a web app, a hosted inspector). Off by default. The
 * listed origins also pass the DNS-rebinding Origin check (naming an origin here is the explicit
 * trust it needs); the Host check stays in force, and that is what stops a rebinding attack.
 */
import type { AuthInfo } from '../../protocol/auth-info.js';
import type { CancelSignal } from '../../platform/cancellation.js';
import type { BodySink, Exchange, HeaderMap } from './exchange.js';

export interface CorsOptions {
  /** Exact origins allowed to call from a browser ("https://app.example.com"), or '*' for any origin. */
  origins: string[] | '*';
  /** Seconds a browser may reuse a preflight answer. Default 600. */
  maxAgeSeconds?: number;
}

export interface CorsRule {
  readonly any: boolean;
  readonly origins: ReadonlySet<string>;
  readonly maxAge: string;
}

// Response headers a browser script may read: the session, the version, and the 2026 headers.
const EXPOSED = 'mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, retry-after, www-authenticate';
// Request headers allowed when the preflight names none (it normally lists the ones it needs, echoed back).
const ALLOWED = 'content-type, accept, authorization, last-event-id, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name';
const METHODS = 'POST, GET, OPTIONS';

const normalize = (origin: string): string => origin.trim().toLowerCase().replace(/\/+$/, '');

export function corsRule(options: CorsOptions | undefined): CorsRule | undefined {
  if (options === undefined) return undefined;
  const origins = (options as Partial<CorsOptions> | null)?.origins;
  const valid = origins === '*' ||
    (Array.isArray(origins) && origins.every((o) => typeof o === 'string' && /^https?:\/\/[^/\s]+\/?$/i.test(o.trim())));
  if (!valid) throw new TypeError('HTTP option cors.origins must be "*" or an array of origins like "https://app.example.com"');
  const maxAge = options.maxAgeSeconds ?? 600;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new TypeError(`HTTP option cors.maxAgeSeconds must be an integer >= 0, got ${String(maxAge)}`);
  return { any: origins === '*', origins: new Set(origins === '*' ? [] : origins.map(normalize)), maxAge: String(maxAge) };
}

/** Whether CORS lets this Origin in (a missing Origin is no cross-origin request at all). */
export function corsAllows(rule: CorsRule | undefined, origin: string | undefined): boolean {
  return rule !== undefined && origin !== undefined && (rule.any || rule.origins.has(normalize(origin)));
}

function allowOrigin(rule: CorsRule, origin: string): Record<string, string> {
  return rule.any ? { 'access-control-allow-origin': '*' } : { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** Answers an `OPTIONS` preflight (after the Host/Origin guard): 204 with the allowances, or 403. */
export function answerPreflight(rule: CorsRule, ex: Exchange<unknown>): void {
  const origin = ex.get('origin');
  if (!corsAllows(rule, origin)) {
    return ex.respond(403, { 'content-type': 'application/json' }, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Origin not allowed by CORS' } }));
  }
  ex.respond(204, {
    ...allowOrigin(rule, origin!),
    'access-control-allow-methods': METHODS,
    'access-control-allow-headers': ex.get('access-control-request-headers') ?? ALLOWED,
    'access-control-max-age': rule.maxAge,
  }, undefined);
}

/**
 * The exchange as seen through CORS: every answer to an allowed Origin carries the CORS headers.
 * Requests from elsewhere (or with no Origin) get the exchange itself, untouched.
 */
export function withCors<Scope>(rule: CorsRule, ex: Exchange<Scope>): Exchange<Scope> {
  const origin = ex.get('origin');
  if (!corsAllows(rule, origin)) return ex;
  const extra: HeaderMap = { ...allowOrigin(rule, origin!), 'access-control-expose-headers': EXPOSED };
  return new CorsExchange(ex, extra);
}

class CorsExchange<Scope> implements Exchange<Scope> {
  constructor(
    private readonly inner: Exchange<Scope>,
    private readonly extra: HeaderMap,
  ) {}

  get method(): string {
    return this.inner.method;
  }
  get signal(): CancelSignal {
    return this.inner.signal;
  }
  get(name: string): string | undefined {
    return this.inner.get(name);
  }
  target(): string {
    return this.inner.target();
  }
  scope(auth: AuthInfo | undefined): Scope | Promise<Scope> | undefined {
    return this.inner.scope(auth);
  }
  readBody(limit: number, sink: BodySink): void {
    this.inner.readBody(limit, sink);
  }
  respond(status: number, headers: HeaderMap | undefined, body: string | undefined): void {
    this.inner.respond(status, { ...headers, ...this.extra }, body);
  }
  openStream(headers: HeaderMap): void {
    this.inner.openStream({ ...headers, ...this.extra });
  }
  write(text: string): void {
    this.inner.write(text);
  }
  end(): void {
    this.inner.end();
  }
  fail(error: unknown): boolean {
    return this.inner.fail?.(error) ?? false;
  }
}
