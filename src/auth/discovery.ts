/**
 * Finds an issuer's JWKS (and introspection endpoint) through its metadata document: RFC 8414
 * first, then OpenID Connect Discovery, in the order the MCP spec has clients try them. The document
 * must name the issuer it was asked for (RFC 8414 §3.3), or a look-alike could hand out its own keys.
 */

export interface IssuerMetadata {
  readonly issuer: string;
  readonly jwks_uri?: string;
  readonly introspection_endpoint?: string;
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The metadata URLs of an issuer, in the order they are tried (RFC 8414 §3.1 and §5). */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/** Fetches the first metadata document that answers; throws when none does or it names another issuer. */
export async function discoverIssuer(issuer: string, fetchImpl: Fetch, timeoutMs: number): Promise<IssuerMetadata> {
  for (const url of metadataUrls(issuer)) {
    const response = await fetchImpl(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      await response.body?.cancel();
      continue;
    }
    const metadata = (await response.json()) as Partial<IssuerMetadata> | null;
    if (metadata?.issuer !== issuer) throw new Error(`The metadata at ${url} names the issuer ${String(metadata?.issuer)}, not ${issuer}`);
    return metadata as IssuerMetadata;
  }
  throw new Error(`No authorization server metadata found for the issuer ${issuer}`);
}
