/**
 * `mcp.proxy(name?, upstream)`: an upstream's tools, prompts, resources and templates served by a
 * MiniMCP as its own (in the namespace `name` when given), kept in step with the upstream's lists,
 * and each use forwarded (src/gateway/forward.ts). Nothing of the core is forked: the entries are
 * registry entries like any other, so visibility, scopes, limits, hooks and telemetry apply.
 */
import { ATTACH, type Attachable } from './attach-point.js';
import type { VisibleRule } from '../primitives/visibility.js';
import { splitCommandLine } from './command-line.js';
import { HttpUpstream, type HttpUpstreamOptions } from './http-upstream.js';
import { Mirror } from './mirror.js';
import { Naming } from './naming.js';
import { subscriptionHooks } from './subscriptions.js';
import { forwardExtensions } from './extensions.js';
import { isObject } from '../protocol/jsonrpc.js';
import { PerPrincipalUpstream, type PerPrincipalOptions } from './per-principal.js';
import { StdioUpstream, type StdioUpstreamOptions } from './stdio-upstream.js';
import type { Upstream, UpstreamCommon } from './types.js';

/** An upstream: a stdio command line or its options, a remote server's URL or its options, or an Upstream made elsewhere. */
export type UpstreamSpec =
  | ({ stdio: string | readonly string[] | StdioUpstreamOptions; perPrincipal?: boolean | PerPrincipalOptions } & Omit<StdioUpstreamOptions, 'command' | 'args'>)
  | HttpUpstreamOptions
  | Upstream;

export interface ProxyOptions<Scope = unknown> {
  /** Who may see and use what the upstream serves (the attaching server's filter applies too). */
  visible?: VisibleRule<Scope>;
  /** OAuth scopes a caller's token needs for all of it (default: the server's `scopes`). */
  scopes?: readonly string[];
  /**
   * Other request methods to forward as they are (vendor or extension methods). Without a namespace,
   * the methods of the extensions the gateway knows (skills) are forwarded when the upstream declares them.
   */
  methods?: readonly string[];
}

export interface Proxied {
  readonly upstream: Upstream;
  /** Reads the upstream's lists again now. */
  refresh(): Promise<void>;
  /** Removes what was registered and stops the upstream. */
  close(): Promise<void>;
}

const isUpstream = (spec: UpstreamSpec): spec is Upstream => typeof (spec as Upstream).request === 'function';

/** Builds the upstream a spec names (not started). */
export function upstreamOf(spec: UpstreamSpec, name: string | undefined, common: UpstreamCommon = {}): Upstream {
  if (isUpstream(spec)) return spec;
  if ('stdio' in spec) {
    const { stdio, perPrincipal, ...rest } = spec;
    const options = stdioOptions(stdio, { name, ...common, ...rest });
    if (perPrincipal === undefined || perPrincipal === false) return new StdioUpstream(options);
    // Each principal's child is its own process: nothing one caller leaves in it reaches another.
    return new PerPrincipalUpstream(options.name ?? 'upstream', () => new StdioUpstream(options), perPrincipal === true ? {} : perPrincipal);
  }
  return new HttpUpstream({ name, ...common, ...spec });
}

function stdioOptions(stdio: string | readonly string[] | StdioUpstreamOptions, rest: Omit<StdioUpstreamOptions, 'command'>): StdioUpstreamOptions {
  if (typeof stdio === 'object' && !Array.isArray(stdio)) return { ...rest, ...(stdio as StdioUpstreamOptions) };
  const words = typeof stdio === 'string' ? splitCommandLine(stdio) : [...(stdio as readonly string[])];
  if (words.length === 0) throw new Error('The stdio upstream needs a command');
  return { ...rest, command: words[0] as string, args: words.slice(1) };
}

/** Starts the upstream, reads its lists and registers them; resolves once they are served. */
export async function attachUpstream<Scope>(server: Attachable<Scope>, name: string | undefined, spec: UpstreamSpec, options: ProxyOptions<Scope> = {}): Promise<Proxied> {
  const naming = new Naming(name);
  const upstream = upstreamOf(spec, name);
  const point = server[ATTACH]() as never as ReturnType<Attachable<unknown>[typeof ATTACH]>;
  const settings = { upstream, telemetry: point.telemetry };
  const mirror = new Mirror(point, settings, naming, { visible: options.visible as VisibleRule<unknown> | undefined, scopes: options.scopes });
  const resync = (what: Promise<unknown>): void => void what.catch((error: unknown) => point.reportError(error));
  const stops: (() => void)[] = [];
  const stop = upstream.listen((method, params) => {
    if (method === 'notifications/tools/list_changed') resync(mirror.sync('tools'));
    else if (method === 'notifications/prompts/list_changed') resync(mirror.sync('prompts'));
    else if (method === 'notifications/resources/list_changed') resync(Promise.all([mirror.sync('resources'), mirror.sync('templates')]));
    else if (method === 'gateway/restarted') resync(mirror.syncAll());
    else if (method === 'notifications/resources/updated' && typeof params.uri === 'string') point.notifyResourceUpdated(naming.uri(params.uri));
  });
  try {
    await upstream.start();
    await mirror.syncAll();
    // Extension methods carry the upstream's own URIs and names: served only where nothing is renamed.
    if (name === undefined || options.methods !== undefined) forwardExtensions(point, settings, options.methods ?? [], name === undefined);
    const resources = upstream.capabilities.resources;
    if (isObject(resources) && resources.subscribe === true) {
      const subscriptions = subscriptionHooks(upstream, (uri) => mirror.originalOf(uri), (error) => point.reportError(error));
      point.use(subscriptions.hooks);
      stops.push(subscriptions.stop);
    }
  } catch (error) {
    stop();
    mirror.clear();
    await upstream.close();
    throw error;
  }
  return {
    upstream,
    refresh: () => mirror.syncAll(),
    close: async () => {
      stop();
      for (const end of stops) end();
      mirror.clear();
      await upstream.close();
    },
  };
}
