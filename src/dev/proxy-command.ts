/**
 * `minimcp proxy`: any MCP server (a stdio command, a remote URL) as a remote MiniMCP server, with
 * OAuth in front when asked and shared state on Redis when REDIS_URL is set. Parsing is a pure
 * function (`proxyArgs`); `runProxy` starts it all.
 */
import type { MiniMCPOptions } from '../options.js';
import { MiniMCP } from '../server.js';
import type { Proxied, UpstreamSpec } from '../gateway/attach.js';
import type { ClientCredentialsOptions } from '../gateway/oauth-client.js';

export const PROXY_USAGE = `Usage:
  minimcp proxy [--port N] [--host H] (--stdio "<command line>" | --http <url> | --mount name=<command line or url> ...)
                [--header "Name: value" ...] [--per-principal]
                [--upstream-client-id ID --upstream-client-secret-env NAME (--upstream-token-url URL | --upstream-issuer URL)
                 [--upstream-scope "a b"] [--upstream-resource URL]]
                [--auth-issuer <issuer URL> [--auth-resource <this server's URL>] [--auth-scopes "a b"]]
      Serves the upstream(s) at http://H:N/mcp in both protocol eras. --mount (repeatable) serves several,
      each under its name (tools name_tool, resources name+uri). --header is sent to HTTP upstreams (their
      own credentials; a caller's token is never passed on). --upstream-client-id makes the gateway an
      OAuth client of its own for them (client-credentials grant; the secret is read from the environment
      variable NAME, never from the command line; the resource defaults to each upstream's URL). --per-principal runs one stdio child per
      caller. With --auth-issuer every request needs an access token from that issuer for this resource.
      REDIS_URL (with MINIMCP_SECRET) shares sessions and MRTR state between instances; each instance
      still runs its own stdio children, so what a stdio upstream keeps in memory is per instance.`;

export interface ProxyArgs {
  port: number;
  host: string;
  upstreams: { name: string | undefined; spec: UpstreamSpec }[];
  auth?: { issuer: string; resource: string; scopes: string[] };
}

function takeAll(args: string[], name: string): string[] {
  const values: string[] = [];
  for (let at = args.indexOf(name); at >= 0; at = args.indexOf(name)) {
    const value = args[at + 1];
    if (value === undefined) throw new Error(`${name} needs a value`);
    values.push(value);
    args.splice(at, 2);
  }
  return values;
}

const take = (args: string[], name: string): string | undefined => takeAll(args, name).at(-1);

/** The gateway's own OAuth client for HTTP upstreams; the secret comes from the environment only. */
function oauthOf(args: string[], env: Record<string, string | undefined>): ClientCredentialsOptions | undefined {
  const clientId = take(args, '--upstream-client-id');
  const secretEnv = take(args, '--upstream-client-secret-env');
  const tokenUrl = take(args, '--upstream-token-url');
  const issuer = take(args, '--upstream-issuer');
  const scope = take(args, '--upstream-scope');
  const resource = take(args, '--upstream-resource');
  if (clientId === undefined) {
    if (secretEnv ?? tokenUrl ?? issuer ?? scope ?? resource) throw new Error('The --upstream-* options need --upstream-client-id');
    return undefined;
  }
  if (secretEnv === undefined) throw new Error('--upstream-client-id needs --upstream-client-secret-env NAME (the secret is read from that environment variable)');
  const clientSecret = env[secretEnv];
  if (!clientSecret) throw new Error(`The environment variable ${secretEnv} (--upstream-client-secret-env) is not set`);
  if ((tokenUrl === undefined) === (issuer === undefined)) throw new Error('--upstream-client-id needs one of --upstream-token-url or --upstream-issuer');
  return { clientId, clientSecret, ...(tokenUrl !== undefined && { tokenUrl }), ...(issuer !== undefined && { issuer }), ...(scope !== undefined && { scope }), ...(resource !== undefined && { resource }) };
}

function specOf(target: string, headers: Record<string, string>, perPrincipal: boolean, oauth?: ClientCredentialsOptions): UpstreamSpec {
  if (/^https?:\/\//i.test(target)) return { url: target, headers, ...(oauth !== undefined && { oauth: { resource: target, ...oauth } }) };
  return perPrincipal ? { stdio: target, perPrincipal: true } : { stdio: target };
}

function headersOf(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`--header needs "Name: value", got ${line}`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Reads the command line (without `proxy`); throws with a message for anything it does not understand. */
export function proxyArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): ProxyArgs {
  const args = [...argv];
  const perPrincipal = args.includes('--per-principal');
  if (perPrincipal) args.splice(args.indexOf('--per-principal'), 1);
  const portText = take(args, '--port') ?? env.PORT ?? '3000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Not a port: ${portText}`);
  const host = take(args, '--host') ?? '127.0.0.1';
  const headers = headersOf(takeAll(args, '--header'));
  const oauth = oauthOf(args, env);
  const upstreams: ProxyArgs['upstreams'] = [];
  for (const command of takeAll(args, '--stdio')) upstreams.push({ name: undefined, spec: specOf(command, headers, perPrincipal) });
  for (const url of takeAll(args, '--http')) upstreams.push({ name: undefined, spec: specOf(url, headers, perPrincipal, oauth) });
  for (const mount of takeAll(args, '--mount')) {
    const eq = mount.indexOf('=');
    if (eq <= 0) throw new Error(`--mount needs name=<command line or url>, got ${mount}`);
    upstreams.push({ name: mount.slice(0, eq), spec: specOf(mount.slice(eq + 1), headers, perPrincipal, oauth) });
  }
  const issuer = take(args, '--auth-issuer');
  const resource = take(args, '--auth-resource') ?? `http://${host}:${port}/mcp`;
  const scopes = (take(args, '--auth-scopes') ?? '').split(/\s+/).filter((s) => s.length > 0);
  if (args.length > 0) throw new Error(`Unknown arguments: ${args.join(' ')}\n${PROXY_USAGE}`);
  if (upstreams.length === 0) throw new Error(PROXY_USAGE);
  if (upstreams.filter((u) => u.name === undefined).length > 1) throw new Error('More than one unnamed upstream: name them with --mount name=…');
  return { port, host, upstreams, ...(issuer !== undefined && { auth: { issuer, resource, scopes } }) };
}

/** REDIS_URL and MINIMCP_SECRET: state shared by every instance (sessions, MRTR state, cancellations). */
async function sharedState(env: Record<string, string | undefined>): Promise<Partial<MiniMCPOptions>> {
  if (!env.REDIS_URL) return {};
  if (!env.MINIMCP_SECRET) throw new Error('REDIS_URL is set but MINIMCP_SECRET is not: every instance needs the same secret (32 bytes or more)');
  const { redisState } = await import('../redis/index.js');
  return { state: await redisState({ url: env.REDIS_URL }), requestState: { secret: env.MINIMCP_SECRET } };
}

/** Starts the gateway; resolves with its URL and a function that stops it. */
export async function runProxy(argv: readonly string[], env: Record<string, string | undefined> = process.env): Promise<{ url: string; close(): Promise<void> }> {
  const options = proxyArgs(argv, env);
  const mcp = new MiniMCP({ name: 'minimcp-gateway', version: '1.0.0', ...(await sharedState(env)) });
  const proxied: Proxied[] = [];
  for (const { name, spec } of options.upstreams) proxied.push(await (name === undefined ? mcp.proxy(spec) : mcp.proxy(name, spec)));
  const { serve } = await import('../transports/http/node.js');
  const auth = options.auth === undefined ? undefined : (await import('../auth/index.js')).oauthResourceServer(options.auth);
  const running = await serve(mcp, { port: options.port, host: options.host, ...(auth !== undefined && { auth }) });
  return {
    url: running.url,
    close: async () => {
      await running.close();
      await Promise.all(proxied.map((p) => p.close()));
    },
  };
}
