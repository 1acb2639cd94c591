/**
 * Opaque access tokens, asked about at the authorization server (RFC 7662). The answer must say
 * `active`, name this server among its audiences when it names any (RFC 8707), come from the
 * configured issuer when it says, and not be expired; the resource server's cache then keeps it
 * no longer than its `exp`. The introspection endpoint is found in the issuer's metadata.
 */
import { discoverIssuer, type Fetch } from './discovery.js';
import { IssuerUnavailable, TokenRejected } from './jwt.js';

export interface IntrospectionOptions {
  /** This resource server's own credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** Default: `introspection_endpoint` of the issuer's metadata. */
  endpoint?: string;
}

export interface IntrospectionSettings {
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly timeoutMs: number;
  readonly fetch: Fetch;
}

export class Introspector {
  #endpoint: Promise<string> | undefined;
  readonly #authorization: string;

  constructor(
    private readonly options: IntrospectionOptions,
    private readonly settings: IntrospectionSettings,
  ) {
    if (typeof options?.clientId !== 'string' || typeof options.clientSecret !== 'string') {
      throw new TypeError('oauthResourceServer option introspection needs clientId and clientSecret');
    }
    const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.#authorization = `Basic ${btoa(pair)}`;
  }

  /** The token's claims when it is active and meant for this server; throws TokenRejected or IssuerUnavailable. */
  async introspect(token: string): Promise<Record<string, unknown>> {
    const answer = await this.#ask(token);
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
