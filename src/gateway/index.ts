/**
 * minimcp/gateway: any MCP server behind MiniMCP. `mcp.proxy()` is the usual entry; this subpath adds
 * the standalone form and the upstream clients themselves. See docs/gateway.md.
 */
import { MiniMCP, type MiniMCPOptions } from '../server.js';
import { attachUpstream, type Proxied, type UpstreamSpec } from './attach.js';

export { attachUpstream, upstreamOf, type Proxied, type ProxyOptions, type UpstreamSpec } from './attach.js';
export { HttpUpstream, type HttpUpstreamOptions } from './http-upstream.js';
export { StdioUpstream, type StdioUpstreamOptions } from './stdio-upstream.js';
export { PerPrincipalUpstream, type PerPrincipalOptions } from './per-principal.js';
export { ClientCredentials, type ClientCredentialsOptions } from './oauth-client.js';
export { splitCommandLine } from './command-line.js';
export { UpstreamError, UpstreamUnavailable, type CallHooks, type Upstream, type UpstreamAsk, type UpstreamCommon } from './types.js';

/** The standalone form: a new MiniMCP that serves one upstream (its name and version default to the gateway's). */
export async function createProxy<Scope = unknown>(
  upstream: UpstreamSpec,
  options: Partial<MiniMCPOptions<Scope>> = {},
): Promise<{ server: MiniMCP<Scope>; proxied: Proxied }> {
  // The server's own `visible` filter and `scopes` apply to everything it proxies.
  const server = new MiniMCP<Scope>({ name: 'minimcp-gateway', version: '1.0.0', ...options } as MiniMCPOptions<Scope>);
  const proxied = await attachUpstream(server, undefined, upstream);
  return { server, proxied };
}
