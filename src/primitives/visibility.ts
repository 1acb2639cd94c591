/**
 * Per-principal visibility: which tools, prompts, resources and templates one caller may see. An
 * entry the caller may not see is treated everywhere as if it were not registered, so an answer never
 * hints that it exists. With no rule anywhere, nothing here runs and nothing is allocated per request.
 */
import type { BusEvent } from '../state/bus.js';
import { hasScopes, type AuthInfo } from '../protocol/auth-info.js';
import type { Context } from '../context/context.js';
import type { Connection } from '../signing/session-ids.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { HANDSHAKE_VERSIONS } from '../protocol/versions.js';

/** What visibility rules may look at: the facts of the request, never its channel back to the client. */
export type Caller<Scope> = Pick<Context<Scope>, 'scope' | 'era' | 'protocolVersion' | 'client'> & { readonly auth?: AuthInfo | undefined };

/** A registration's own rule: return true when this caller may see (and so use) the primitive. */
export type VisibleRule<Scope> = (caller: Caller<Scope>) => boolean;

export type PrimitiveKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** A registered primitive as the server-wide filter sees it. */
export interface Primitive {
  readonly kind: PrimitiveKind;
  /** The tool or prompt name, the resource URI or the URI template. */
  readonly id: string;
  /** The object the list methods publish (name, `_meta`, annotations...). */
  readonly definition: JsonObject;
}

/** The server-wide filter: applied to every primitive, after the primitive's own `visible` rule. */
export type VisibilityFilter<Scope> = (primitive: Primitive, caller: Caller<Scope>) => boolean;

/** An extension method (`mcp.method()`) as the server-wide `scopes` function sees it. */
export interface MethodPrimitive {
  readonly kind: 'method';
  /** The method name. */
  readonly id: string;
  readonly definition: JsonObject;
}

/**
 * The server-wide `scopes` option: the scopes of every primitive and extension method that names
 * none, or a function of it.
 */
export type DefaultScopes = readonly string[] | ((primitive: Primitive | MethodPrimitive) => readonly string[] | undefined);

/** What scopes are checked on: a primitive or an extension method, with its own `scopes` if any. */
export type Scoped = (Primitive | MethodPrimitive) & { readonly scopes?: readonly string[] | undefined };

/** An entry a registry can filter. */
export interface Filterable<Scope> extends Primitive {
  readonly visible: VisibleRule<Scope> | undefined;
  /** The OAuth scopes a caller's token needs to see and use it (undefined: the server's default). */
  readonly scopes?: readonly string[] | undefined;
}

const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/; // RFC 6749 §3.3 scope-token

/** Checks a `scopes` option at registration: a list of RFC 6749 scope tokens, copied and frozen. */
export function scopeList(owner: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new Error(`${owner}: scopes must be an array of OAuth scope names (no spaces, quotes or backslashes)`);
  }
  return Object.freeze([...value]);
}

/**
 * Applies the rules and the scopes. A rule that throws hides the primitive (fail closed) and is
 * reported to the server log. Scopes apply to callers with a verified token (`caller.auth`) only.
 */
export class Visibility<Scope> {
  readonly #defaults: DefaultScopes | undefined;

  constructor(
    readonly filter: VisibilityFilter<Scope> | undefined,
    private readonly report: (error: unknown) => void,
    defaults?: DefaultScopes,
  ) {
    if (defaults !== undefined && typeof defaults !== 'function') scopeList('MiniMCP option scopes', defaults);
    this.#defaults = defaults;
  }

  /** True when some primitives may need scopes by default: lists may differ by caller. */
  get scoped(): boolean {
    return this.#defaults !== undefined;
  }

  /** Whether the caller may see the primitive: its rules pass and its token has the scopes. */
  allows(entry: Filterable<Scope>, caller: Caller<Scope>): boolean {
    return this.rulesAllow(entry, caller) && this.missing(entry, caller) === undefined;
  }

  /** The `visible` rules alone (the primitive's own, then the server's filter). */
  rulesAllow(entry: Filterable<Scope>, caller: Caller<Scope>): boolean {
    try {
      return (entry.visible === undefined || entry.visible(caller) === true) &&
        (this.filter === undefined || this.filter(entry, caller) === true);
    } catch (error) {
      this.report(error);
      return false;
    }
  }

  /** The scopes the entry needs when the caller's token lacks one of them; undefined when it may go on. */
  missing(entry: Scoped, caller: Caller<Scope>): readonly string[] | undefined {
    const auth = caller.auth;
    if (auth === undefined) return undefined;
    const needed = this.needed(entry);
    return needed === undefined || hasScopes(auth, needed) ? undefined : needed;
  }

  /** The scopes an entry needs: its own, else the server's default (undefined: none). */
  needed(entry: Scoped): readonly string[] | undefined {
    return entry.scopes ?? this.#defaultsOf(entry);
  }

  #defaultsOf(entry: Scoped): readonly string[] | undefined {
    const defaults = this.#defaults;
    if (typeof defaults !== 'function') return defaults;
    try {
      return scopeList('MiniMCP option scopes', defaults(entry));
    } catch (error) {
      this.report(error);
      return ['(unavailable)']; // a broken function hides the primitive (fail closed)
    }
  }
}

/** What a registry offers to tell one caller's list apart from everyone's. */
export interface CallerLists<Scope> {
  /** True when some rule applies, so lists may differ by caller. */
  readonly personal: boolean;
  visibleTo(caller: Caller<Scope>): readonly unknown[];
}

type ListKind = 'tools' | 'prompts' | 'resources';
const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/** The method of MiniMCP that makes a ListView, for transports with a long-lived channel (not public API). */
export const VIEW: unique symbol = Symbol('minimcp.view');
const LIST_OF: Partial<Record<BusEvent['type'], ListKind>> = {
  'tools/list_changed': 'tools',
  'prompts/list_changed': 'prompts',
  'resources/list_changed': 'resources',
};

/**
 * What one long-lived listener (a stdio connection, a 2026 listen stream) last saw of each list, so a
 * `list_changed` reaches it only when its own view changed. Without rules every change is passed on, as before.
 */
export class ListView<Scope> {
  readonly #seen = new Map<ListKind, readonly unknown[]>();

  constructor(
    private readonly lists: Readonly<Record<ListKind, CallerLists<Scope>>>,
    private readonly caller: Caller<Scope>,
  ) {
    // Without rules this is the registry's shared array: a reference, not a copy.
    for (const kind of LIST_KINDS) this.#seen.set(kind, lists[kind].visibleTo(caller));
  }

  /** Whether the event concerns this caller; events other than list changes always do. */
  concerns(event: BusEvent): boolean {
    const kind = LIST_OF[event.type];
    if (kind === undefined) return true;
    const list = this.lists[kind];
    const before = this.#seen.get(kind)!;
    const now = list.visibleTo(this.caller);
    this.#seen.set(kind, now);
    // Without rules every change is passed on, as before (it may come from another instance's registry).
    if (!list.personal) return true;
    return now.length !== before.length || now.some((entry, i) => entry !== before[i]);
  }
}

/** The caller behind a 2025 connection (stdio), as its requests will see it once `initialize` filled it in. */
export function connectionCaller<Scope>(scope: Scope, connection: Connection): Caller<Scope> {
  return {
    scope,
    era: 'handshake',
    get protocolVersion() {
      return connection.protocolVersion ?? HANDSHAKE_VERSIONS[0];
    },
    get client() {
      return { capabilities: connection.clientCapabilities ?? {}, info: connection.clientInfo };
    },
  };
}
