/**
 * The gateway's own OAuth client for a remote upstream: the client-credentials grant (RFC 6749 §4.4),
 * so the gateway calls the upstream as itself, never with a caller's token. The token endpoint is given
 * or found in the issuer's metadata (RFC 8414, then OpenID Connect Discovery); `resource` (RFC 8707)
 * binds the token to the upstream. The token is kept until shortly before it expires; concurrent calls
 * share one token request; a token the upstream refused is dropped (`refused`) so the next call gets a
 * new one. The secret never appears in a log line or an error message.
 */
import { UpstreamUnavailable } from './types.js';

export interface ClientCredentialsOptions {
  /** The token endpoint; or give `issuer` and it is read from the issuer's metadata. */
  tokenUrl?: string;
  /** The authorization server's issuer identifier (used when `tokenUrl` is not given). */
  issuer?: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to ask for (default: none, the server's default). */
  scope?: string;
  /** The upstream's resource indicator (RFC 8707), usually its URL. */
  resource?: string;
  /** How the client authenticates at the token endpoint (default 'client_secret_basic'). */
  authMethod?: 'client_secret_basic' | 'client_secret_post';
  /** How long a token (or metadata) request may take, in ms (default 10 000). */
  timeoutMs?: number;
  /** The largest token or metadata answer read, in bytes (default 64 KiB). */
  maxResponseBytes?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** A token is renewed this long before it expires (at most half its lifetime). */
const EARLY_MS = 30_000;

/** Reads a JSON body of at most `max` bytes; a larger one is refused without reading it all. */
async function boundedJson(response: Response, max: number): Promise<unknown> {
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    await response.body?.cancel();
    throw new Error(`an answer over ${max} bytes`);
  }
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  const reader = response.body?.getReader();
  for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
    size += read.value.byteLength;
    if (size > max) {
      await reader?.cancel();
      throw new Error(`an answer over ${max} bytes`);
    }
    text += decoder.decode(read.value, { stream: true });
  }
  return JSON.parse(text + decoder.decode()) as unknown;
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they go into the Basic credentials. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

export class ClientCredentials {
  #token: string | undefined;
  #expiresAt = Number.POSITIVE_INFINITY;
  #inFlight: Promise<string> | undefined;
  #tokenUrl: Promise<string> | undefined;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #max: number;

  constructor(private readonly options: ClientCredentialsOptions) {
    if (!options.clientId || !options.clientSecret) throw new TypeError('The upstream OAuth client needs clientId and clientSecret');
    if (options.tokenUrl === undefined && options.issuer === undefined) throw new TypeError('The upstream OAuth client needs tokenUrl or issuer');
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#max = options.maxResponseBytes ?? 65_536;
  }

  /** A valid access token: the kept one, or a new one (one request at a time, shared by every caller). */
  token(): Promise<string> {
    if (this.#token !== undefined && Date.now() < this.#expiresAt) return Promise.resolve(this.#token);
    this.#inFlight ??= this.#request().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** The upstream refused `token`: it is not used again (a newer one, got meanwhile, is kept). */
  refused(token: string): void {
    if (this.#token === token) this.#token = undefined;
  }

  async #request(): Promise<string> {
    const { clientId, clientSecret, scope, resource } = this.options;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope !== '') form.set('scope', scope);
    if (resource !== undefined) form.set('resource', resource);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (this.options.authMethod === 'client_secret_post') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      headers.authorization = `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`;
    }
    const started = Date.now();
    const answer = await this.#ask(await this.#endpoint(), { method: 'POST', headers, body: form.toString() });
    const token = answer.access_token;
    if (typeof token !== 'string' || token === '') throw new UpstreamUnavailable(`The token endpoint gave client ${clientId} no access_token`);
    // A DPoP-bound token would be refused as a bearer token: say so rather than fail at the upstream.
    if (typeof answer.token_type === 'string' && answer.token_type.toLowerCase() !== 'bearer') throw new UpstreamUnavailable(`The token endpoint gave client ${clientId} a ${answer.token_type} token, not a Bearer one`);
    const seconds = Number(answer.expires_in); // some servers send it as a string
    const lifetime = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
    this.#token = token;
    this.#expiresAt = lifetime === undefined ? Number.POSITIVE_INFINITY : started + lifetime - Math.min(EARLY_MS, lifetime / 2);
    return token;
  }

  /** The token endpoint: given, or the issuer's metadata's `token_endpoint` (read once). */
  #endpoint(): Promise<string> {
    if (this.options.tokenUrl !== undefined) return Promise.resolve(this.options.tokenUrl);
    this.#tokenUrl ??= this.#discover().catch((error: unknown) => {
      this.#tokenUrl = undefined; // asked again next time
      throw error;
    });
    return this.#tokenUrl;
  }

  async #discover(): Promise<string> {
    const issuer = this.options.issuer as string;
    const url = new URL(issuer);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
    for (const where of [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}/.well-known/openid-configuration${path}`, `${url.origin}${path}/.well-known/openid-configuration`]) {
      const metadata = await this.#ask(where, { headers: { accept: 'application/json' } }, true).catch(() => undefined);
      if (metadata === undefined) continue;
      // RFC 8414 §3.3: a document naming another issuer is not this issuer's.
      if (metadata.issuer !== issuer) throw new UpstreamUnavailable(`The metadata at ${where} names another issuer than ${issuer}`);
      if (typeof metadata.token_endpoint !== 'string') throw new UpstreamUnavailable(`The issuer ${issuer} publishes no token_endpoint`);
      return metadata.token_endpoint;
    }
    throw new UpstreamUnavailable(`No authorization server metadata found for the issuer ${issuer}`);
  }

  /** One bounded request to the authorization server; its errors name the status and OAuth error, never the secret. */
  async #ask(url: string, init: RequestInit, quiet = false): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await this.#fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (error) {
      throw new UpstreamUnavailable(`The authorization server at ${url} did not answer: ${(error as Error)?.name === 'TimeoutError' ? `no answer within ${this.#timeoutMs} ms` : 'unreachable'}`);
    }
    let body: unknown;
    try {
      body = await boundedJson(response, this.#max);
    } catch (error) {
      throw new UpstreamUnavailable(`The authorization server at ${url} answered ${response.status}: ${quiet ? 'not JSON' : (error as Error).message}`);
    }
    const answer = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (!response.ok) {
      const reason = [answer.error, answer.error_description].filter((part) => typeof part === 'string').join(': ').slice(0, 300);
      throw new UpstreamUnavailable(`The authorization server at ${url} refused client ${this.options.clientId}: ${response.status}${reason ? ` ${reason}` : ''}`);
    }
    return answer;
  }
}
