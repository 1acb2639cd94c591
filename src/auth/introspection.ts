/**
 * Opaque access tokens, asked about at the authorization server (RFC 7662). The answer must say
 * `active`, name this server among its audiences when it names any (RFC 8707), come from the
 * configured issuer when it says, and not be expired; the resource server's cache then keeps it
 * no longer than its `exp`. The introspection endpoint is found in the issuer's metadata.
 *
 * Anyone can send tokens, so asking is bounded: a refused token is remembered for a short while
 * (by its SHA-256, never the token itself; bounded in count) and answered without asking again, and
 * at most `maxPerSecond` introspections leave per second (a token bucket); past it the request is
 * refused as IntrospectionBusy (503, Retry-After: 1), tokens already cached unaffected.
 */
import { toBase64url } from '../platform/base64url.js';
import { discoverIssuer, type Fetch } from './discovery.js';
import { IssuerUnavailable, TokenRejected } from './jwt.js';

/** The cap on introspections was reached: not the token's fault, so not a 401. */
export class IntrospectionBusy extends IssuerUnavailable {}

/** Refused tokens remembered at most (their hashes); the oldest leaves first. */
export const MAX_REMEMBERED_REFUSALS = 10_000;

export interface IntrospectionOptions {
  /** This resource server's own credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** Default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
  /** Introspections at most per second, all callers together (a burst of as many). Default 50. */
  maxPerSecond?: number;
  /** A refused token is answered 401 without asking again for this long (ms; 0: never remembered). Default 10 s. */
  refusalTtlMs?: number;
}

export interface IntrospectionSettings {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly timeoutMs: number;
  readonly fetch: Fetch;
}

const encoder = new TextEncoder();
const hashOf = async (token: string): Promise<string> =>
  toBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token))));

function positive(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new TypeError(`oauthResourceServer option introspection.${name} must be an integer >= ${min}`);
  return value;
}

export class Introspector {
  #endpoint: Promise<string> | undefined;
  readonly #authorization: string;
  /** SHA-256 of a refused token -> until when (ms) it is answered without asking; oldest first. */
  readonly #refused = new Map<string, { until: number; reason: string }>();
  readonly #refusalTtlMs: number;
  readonly #maxPerSecond: number;
  /** The token bucket: introspections that may leave now, refilled at maxPerSecond. */
  #tokens: number;
  #filledAt = Date.now();

  constructor(
    private readonly options: IntrospectionOptions,
    private readonly settings: IntrospectionSettings,
  ) {
    if (typeof options?.clientId !== 'string' || typeof options.clientSecret !== 'string') {
      throw new TypeError('oauthResourceServer option introspection needs clientId and clientSecret');
    }
    const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.#authorization = `Basic ${btoa(pair)}`;
    this.#maxPerSecond = positive(options.maxPerSecond, 'maxPerSecond', 50, 1);
    this.#refusalTtlMs = positive(options.refusalTtlMs, 'refusalTtlMs', 10_000, 0);
    this.#tokens = this.#maxPerSecond;
  }

  /** The token's claims when it is active and meant for this server; throws TokenRejected or IssuerUnavailable (IntrospectionBusy past the cap). */
  async introspect(token: string): Promise<Record<string, unknown>> {
    const hash = this.#refusalTtlMs > 0 ? await hashOf(token) : undefined;
    const now = Date.now();
    const refused = hash === undefined ? undefined : this.#refused.get(hash);
    if (refused !== undefined && refused.until > now) throw new TokenRejected(`${refused.reason} (remembered)`);
    if (!this.#take(now)) throw new IntrospectionBusy(`introspection: more than ${this.#maxPerSecond} a second, refused without asking`);
    try {
      return this.#check(await this.#ask(token));
    } catch (error) {
      if (hash !== undefined && error instanceof TokenRejected) this.#remember(hash, error.message, Date.now());
      throw error;
    }
  }

  /** One introspection may leave now (the bucket refilled for the time passed). */
  #take(now: number): boolean {
    this.#tokens = Math.min(this.#maxPerSecond, this.#tokens + ((now - this.#filledAt) / 1000) * this.#maxPerSecond);
    this.#filledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens--;
    return true;
  }

  #remember(hash: string, reason: string, now: number): void {
    const refused = this.#refused;
    refused.delete(hash);
    while (refused.size >= MAX_REMEMBERED_REFUSALS) refused.delete(refused.keys().next().value!);
    refused.set(hash, { until: now + this.#refusalTtlMs, reason });
  }

  #check(answer: Record<string, unknown>): Record<string, unknown> {
    if (answer.active !== true) throw new TokenRejected('the token is not active (introspection)');
    const { issuer, audience } = this.settings;
    if (answer.iss !== undefined && answer.iss !== issuer) throw new TokenRejected('the introspection answer names another issuer');
    const aud = answer.aud;
    const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!audiences.some((a) => audience.includes(a as string))) throw new TokenRejected('the token was not issued for this resource (aud)');
    if (typeof answer.exp !== 'number') throw new TokenRejected('the introspection answer has no exp');
    // A token a client got for itself (client credentials) may have no sub: the client is the caller.
    return { iss: issuer, ...answer, sub: answer.sub ?? answer.client_id };
  }

  async #ask(token: string): Promise<Record<string, unknown>> {
    const endpoint = await this.#endpointOf();
    let response: Response;
    try {
      response = await this.settings.fetch(endpoint, {
        method: 'POST',
        headers: { authorization: this.#authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (error) {
      throw new IssuerUnavailable(`introspection: ${(error as Error)?.message ?? String(error)}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`introspection answered ${response.status}`);
    }
    return (await response.json()) as Record<string, unknown>;
  }

  #endpointOf(): Promise<string> {
    if (this.options.endpoint !== undefined) return Promise.resolve(this.options.endpoint);
    this.#endpoint ??= discoverIssuer(this.settings.issuer, this.settings.fetch, this.settings.timeoutMs).then(
      (metadata) => {
        if (typeof metadata.introspection_endpoint !== 'string') throw new Error('the issuer publishes no introspection_endpoint');
        return metadata.introspection_endpoint;
      },
    );
    return this.#endpoint.catch((error: unknown) => {
      this.#endpoint = undefined;
      throw new IssuerUnavailable(`discovery: ${(error as Error)?.message ?? String(error)}`);
    });
  }
}
