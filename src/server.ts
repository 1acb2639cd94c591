/**
 * MiniMCP: registration, and `handle()`, the one function every transport wraps (the options live in
 * options.ts). Handlers are registered once; nothing here is rebuilt per request and no session is kept.
 */
import type { AuthInfo } from './protocol/auth-info.js';
import { loadCrypto } from './signing/request-state.js';
import type { Core, Hooks } from './request/core.js';
import type { RateLimiter } from './limits/rate-limit.js';
import type { MessageFacts, Outcome, OutcomeSink, Send } from './transport.js';
import { routeMessage } from './request/inbound.js';
import { Capabilities } from './methods/capabilities.js';
import type { NotificationBus } from './state/bus.js';
import type { SharedState } from './state/index.js';
import { SessionWatch } from './state/session-watch.js';
import { internalError, type McpError } from './protocol/errors.js';
import { serializeMessage, type JsonObject, } from './protocol/jsonrpc.js';
import { firstTimeReached } from './state/bounds.js';
import { PromptRegistry, type PromptArgument, type PromptHandler, type PromptOptions } from './primitives/prompts.js';
import {
  ResourceRegistry, type ResourceOptions, type ResourceReader, type TemplateOptions, type TemplateReader,
} from './primitives/resources.js';
import { ToolRegistry, type ToolHandler, type ToolOptions } from './primitives/tools.js';
import { ListView, VIEW, Visibility, type Caller } from './primitives/visibility.js';
import { ATTACH, type AttachPoint } from './gateway/attach-point.js';
import type { Proxied, ProxyOptions, UpstreamSpec } from './gateway/attach.js';
import { mountServer, type Mounted } from './gateway/mount.js';
import type { SchemaCheck, SchemaLike } from './schema/standard-schema.js';
import type { Implementation } from './protocol/mcp-types.js';
import { principalFrom, wire, type MiniMCPOptions } from './options.js';
import { BUILT_IN_METHODS } from './methods/built-ins.js';
import { MethodTable } from './methods/table.js';
import {methodSpec, notificationSpec, type MethodCapability, type MethodHandler, type MethodOptions,
  type NotificationHandler, type NotificationOptions,
} from './methods/extension.js';

import { EventSet, type EventHandle } from './events/register.js';
import type { EventOptions, SchemaValue } from './events/event-type.js';
import type { EventsOptions } from './events/settings.js';
import { Signer } from './signing/request-state.js';
import { SkillSet } from './skills/serve.js';
import { oneSkill, serveSkills, skillsUnder, type SkillOptions } from './skills/register.js';
import type { SkillDefinition } from './skills/skill.js';

export type { MiniMCPOptions } from './options.js';

export class MiniMCP<Scope = unknown> {
  readonly #core: Core<Scope>;
  readonly #capabilities: Capabilities<Scope>;
  readonly #methods = new MethodTable(BUILT_IN_METHODS);
  #skills: SkillSet<Scope> | undefined;
  /** The rules and default scopes, for extension methods (primitives reach them through their registries). */
  readonly #visibility: Visibility<Scope>;
  readonly #events: EventSet<Scope>;
  #nextId = 0;

  constructor(options: MiniMCPOptions<Scope>) {
    const wired = wire(options as MiniMCPOptions<never>);
    const bus = wired.state.bus;
    this.#capabilities = new Capabilities(() => this.#core, options.capabilities ?? {});
    const changed = (type: 'tools' | 'prompts' | 'resources') => () => {
      this.#capabilities.changed();
      bus.publish({ type: `${type}/list_changed` });
    };
    const onError = options.onError ?? ((error, request) => console.error(`[minimcp] ${request?.method ?? 'transport'} failed:`, error));
    const onDebug = options.onDebug ?? ((message: string) => console.error(`[minimcp] ${message}`));
    if (options.visible !== undefined && typeof options.visible !== 'function') throw new TypeError('MiniMCP option visible must be a function');
    const visibility = new Visibility<Scope>(options.visible, (error) => this.#core.reportError(error, undefined), options.scopes);
    this.#visibility = visibility;
    this.#core = {
      ...wired,
      tools: new ToolRegistry<Scope>(changed('tools'), options.toJsonSchema, visibility),
      prompts: new PromptRegistry<Scope>(changed('prompts'), options.toJsonSchema, visibility),
      resources: new ResourceRegistry<Scope>(changed('resources'), visibility),
      hooks: [],
      methods: this.#methods,
      // Both eras advertise the same set, except tasks: core in 2025, an extension in 2026.
      capabilities: (era, caller) => this.#capabilities.for(era, caller),
      principalOf: (scope, auth) => principalFrom(scope, options.principal, auth),
      reportError: (error, request) => {
        try {
          onError(error, request);
        } catch {
          // The server log must never take the server down.
        }
      },
      reportDebug: (message, request) => {
        try {
          onDebug(message, request);
        } catch {
          // Nor its debug level.
        }
      },
    };
    this.#core.tasks.report = (error) => this.#core.reportError(error, undefined);
    if (this.#core.rates !== undefined) this.#core.rates.report = (error) => this.#core.reportError(error, undefined);
    this.#events = new EventSet<Scope>({
      host: this,
      signer: new Signer(options.requestState?.secret),
      methods: { pageSize: this.#core.settings.pageSize, listCache: this.#core.settings.cache.tools },
      sharedLog: wired.state.events,
      sharedSubscriptions: wired.state.eventSubscriptions,
      converter: options.toJsonSchema,
      report: (error) => this.#core.reportError(error, undefined),
      changed: () => bus.publish({ type: 'events/list_changed' }),
    });
  }

  /** Server facts as sent in `initialize` and `server/discover`. */
  get info(): Implementation {
    return this.#core.info;
  }

  /** The notification bus (list changes, resource updates); transports subscribe to it. */
  get bus(): NotificationBus {
    return this.#core.state.bus;
  }

  /**
   * Per-principal rate limits (the `rateLimit` option), undefined when off. A transport that knows the
   * principal before it reads a message asks here first, then says so with `rateChecked` in the facts.
   */
  get rates(): RateLimiter | undefined {
    return this.#core.rates;
  }

  /** The state that outlives one request (see `state` in the options); transports read it. */
  get state(): SharedState {
    return this.#core.state;
  }

  // ---- registration -------------------------------------------------------------------------------

  /**
   * Registers a tool; argument and result types follow from the `input` and `output` schemas (a raw
   * JSON Schema written inline is read literally). Two signatures, with `output` first: a returned
   * result literal keeps its content types, and a tool without `output` gets a concrete `unknown`
   * result type (a `new Promise(...)` in its handler infers freely).
   */
  tool<const In extends SchemaLike | undefined, const Out extends SchemaLike>(
    name: string,
    options: ToolOptions<In, Out, Scope> & { output: Out & SchemaCheck<Out>; input?: In & SchemaCheck<In> },
    handler: ToolHandler<Scope, NoInfer<In>, NoInfer<Out>>,
  ): this;
  tool<const In extends SchemaLike | undefined = undefined>(
    name: string,
    options: ToolOptions<In, undefined, Scope> & { input?: In & SchemaCheck<In> },
    handler: ToolHandler<Scope, NoInfer<In>, undefined>,
  ): this;
  tool(name: string, options: ToolOptions<SchemaLike | undefined, SchemaLike | undefined, Scope>, handler: ToolHandler<Scope, undefined, undefined>): this {
    this.#core.tools.register({ ...options, name, handler });
    return this;
  }

  prompt<A extends SchemaLike | PromptArgument[] | undefined = undefined>(
    name: string,
    options: PromptOptions<A, Scope> & { arguments?: A & SchemaCheck<A> },
    handler: PromptHandler<Scope, A>,
  ): this {
    this.#core.prompts.register({ ...options, name, handler });
    return this;
  }

  resource(uri: string, options: ResourceOptions<Scope>, read: ResourceReader<Scope>): this {
    this.#core.resources.add(uri, options, read);
    return this;
  }

  resourceTemplate<T extends string>(uriTemplate: T, options: TemplateOptions<NoInfer<T>, Scope>, read: TemplateReader<Scope, NoInfer<T>>): this {
    this.#core.resources.addTemplate(uriTemplate, options, read);
    return this;
  }

  /**
   * Serves a request method with the powers of a built-in one: the eras it exists in, the capability
   * it declares, params checked by a schema, `ctx`, MRTR, cache hints, visibility; hooks, limits and
   * telemetry apply as to any method. A name already served is refused. See docs/extensions.md.
   */
  method<const P extends SchemaLike | undefined = undefined>(name: string, options: MethodOptions<P, Scope>, handler: MethodHandler<Scope, NoInfer<P>>): this {
    this.#methods.add(name, methodSpec(name, options as MethodOptions<SchemaLike | undefined, Scope>, handler as MethodHandler<Scope, unknown>, this.#visibility));
    const declared = options.capability === undefined ? [] : Array.isArray(options.capability) ? options.capability : [options.capability];
    for (const capability of declared as MethodCapability[]) this.#capabilities.declare(capability, options.eras ?? 'both', options.visible);
    return this;
  }

  /** Handles a client notification (a vendor one, an extension's); it runs in `route()`, errors go to `onError`. */
  notification<const P extends SchemaLike | undefined = undefined>(name: string, options: NotificationOptions<P>, handler: NotificationHandler<NoInfer<P>>): this {
    this.#methods.addNotification(name, notificationSpec(name, options as NotificationOptions<SchemaLike | undefined>, handler as NotificationHandler<unknown>));
    return this;
  }

  /**
   * Serves every skill under `root` (SEP-2640, Skills over MCP): each directory holding a SKILL.md is a
   * skill at `skill://<its path under root>`. Files are read and checked now (frontmatter, names, the
   * extension's limits); an error names the file and the rule, and then nothing of it is served.
   * See docs/skills.md.
   */
  async skills(root: string | URL, options: SkillOptions<Scope> = {}): Promise<this> {
    const skills = await skillsUnder(root, options);
    serveSkills(this.#skillSet(options), this, skills);
    return this;
  }

  /** Serves one skill: a directory (its name is the directory's), or `{ path, files }` for skills that are not files. */
  async skill(source: string | URL | SkillDefinition<Scope>, options: SkillOptions<Scope> = {}): Promise<this> {
    const skill = await oneSkill(source, options);
    serveSkills(this.#skillSet(options), this, [skill]);
    return this;
  }

  /**
   * Declares an event type (SEP-3415, the Events extension): clients list it, and poll, stream or
   * subscribe by webhook to its occurrences. Returns its handle: `emit(data, { eventId? })` appends
   * an occurrence (a `source` type is read from its upstream instead). See docs/events.md.
   */
  event<const In extends SchemaLike | undefined = undefined, const Payload extends SchemaLike = SchemaLike>(
    name: string,
    options: EventOptions<In, Payload, Scope> & { input?: In & SchemaCheck<In>; payload: Payload & SchemaCheck<Payload> },
  ): EventHandle<SchemaValue<Payload>> {
    return this.#events.add(name, options as unknown as EventOptions<SchemaLike | undefined, Payload, Scope>);
  }

  /** The Events extension's settings (heartbeat, poll interval, error codes, log, webhooks): once, before the first `event()`. */
  configureEvents(options: EventsOptions): this {
    this.#events.configure(options);
    return this;
  }

  #skillSet(options: SkillOptions<Scope>): SkillSet<Scope> {
    const directoryRead = options.directoryRead ?? this.#skills?.directoryRead ?? true;
    if (this.#skills !== undefined && directoryRead !== this.#skills.directoryRead) {
      throw new Error('directoryRead is decided by the first skills registration of a server');
    }
    const { pageSize, cache } = this.#core.settings;
    const resources = this.#core.resources;
    return (this.#skills ??= new SkillSet<Scope>(this, {
      directoryRead, pageSize, listCache: cache.resources, getCache: cache.reads,
      hidden: (uri, caller) => resources.hiddenFrom(uri, caller), personal: () => resources.personal,
    }));
  }

  /**
   * Serves another MCP server's tools, prompts, resources and templates as this server's own: a stdio
   * command (spawned and supervised) or a remote Streamable HTTP server in either era. With a `name`,
   * they appear as `<name>_<tool>` and `<name>+<uri>`. Resolves once the upstream's lists are served.
   * See docs/gateway.md.
   */
  proxy(upstream: UpstreamSpec, options?: ProxyOptions<Scope>): Promise<Proxied>;
  proxy(name: string, upstream: UpstreamSpec, options?: ProxyOptions<Scope>): Promise<Proxied>;
  async proxy(...args: [UpstreamSpec, ProxyOptions<Scope>?] | [string, UpstreamSpec, ProxyOptions<Scope>?]): Promise<Proxied> {
    // Loaded on first use: a server that proxies nothing never loads the gateway (node:child_process).
    const { attachUpstream } = await import('./gateway/attach.js');
    if (typeof args[0] === 'string') return attachUpstream(this, args[0], args[1] as UpstreamSpec, args[2] as ProxyOptions<Scope> | undefined);
    return attachUpstream(this, undefined, args[0], args[1] as ProxyOptions<Scope> | undefined);
  }

  /**
   * Serves another MiniMCP's tools and prompts as `<name>_<original>` and its resources and templates
   * as `<name>+<uri>`, in process, with the child's visibility and scopes; the child's list changes
   * and resource updates become this server's. See docs/gateway.md.
   */
  mount(name: string, child: MiniMCP<Scope>): Mounted {
    return mountServer(this as never, name, child as never);
  }

  /** Adds hooks around dispatch (logging, metrics, rate limits, authorization). */
  use(hooks: Hooks<Scope>): this {
    this.#core.hooks.push(hooks);
    return this;
  }

  /** Programmatic access per primitive: add / remove / list / call, each change fires list_changed. */
  readonly tools = {
    add: (...a: Parameters<ToolRegistry<Scope>['register']>) => this.#core.tools.register(...a),
    remove: (name: string) => this.#core.tools.remove(name),
    list: () => this.#core.tools.list(),
    call: (name: string, args: JsonObject = {}, facts?: MessageFacts<Scope>) => this.#request('tools/call', { name, arguments: args }, facts),
  };

  readonly prompts = {
    add: (...a: Parameters<PromptRegistry<Scope>['register']>) => this.#core.prompts.register(...a),
    remove: (name: string) => this.#core.prompts.remove(name),
    list: () => this.#core.prompts.list(),
    get: (name: string, args: Record<string, string> = {}, facts?: MessageFacts<Scope>) => this.#request('prompts/get', { name, arguments: args }, facts),
  };

  readonly resources = {
    add: (...a: Parameters<ResourceRegistry<Scope>['add']>) => this.#core.resources.add(...a),
    addTemplate: (...a: Parameters<ResourceRegistry<Scope>['addTemplate']>) => this.#core.resources.addTemplate(...a),
    remove: (uriOrTemplate: string) => this.#core.resources.remove(uriOrTemplate),
    list: () => this.#core.resources.list(),
    listTemplates: () => this.#core.resources.listTemplates(),
    read: (uri: string, facts?: MessageFacts<Scope>) => this.#request('resources/read', { uri }, facts),
  };

  /** What one caller sees of each list: a long-lived channel forwards only the list changes that concern it. */
  [VIEW](caller: Caller<Scope>): ListView<Scope> {
    return new ListView(this.#core, caller);
  }

  /** The registries and channels a composition feature attaches to (the gateway; not public API). */
  [ATTACH](): AttachPoint<Scope> {
    const core = this.#core;
    return {
      tools: core.tools, prompts: core.prompts, resources: core.resources, telemetry: core.telemetry, bus: core.state.bus,
      reportError: (error) => core.reportError(error, undefined),
      use: (hooks) => void this.use(hooks),
      method: (name, options, handler) => void this.method(name, options, handler),
      notifyResourceUpdated: (uri) => this.notifyResourceUpdated(uri),
      skills: () => this.#skills,
      skillHost: () => this.#skillSet({}),
      events: () => this.#events.service,
      eventHost: () => this.#events.host(),
    };
  }

  /** Tells subscribers (2025 `resources/subscribe`, 2026 listen streams) that a resource changed. */
  notifyResourceUpdated(uri: string): void {
    this.#core.state.bus.publish({ type: 'resources/updated', uri });
  }

  // ---- handling -----------------------------------------------------------------------------------

  /**
   * Handles one JSON-RPC message and returns the reply in the same form (text for text, an object
   * for an object), or `undefined` for notifications and client responses. Never throws for
   * anything a peer sent.
   */
  handle(message: string, facts?: MessageFacts<Scope>): Promise<string | undefined>;
  handle(message: object, facts?: MessageFacts<Scope>): Promise<JsonObject | undefined>;
  handle(message: string | object, facts?: MessageFacts<Scope>): Promise<string | JsonObject | undefined>;
  async handle(message: string | object, facts?: MessageFacts<Scope>): Promise<string | JsonObject | undefined> {
    const { reply } = await this.dispatch(message, facts);
    if (reply === undefined || typeof message !== 'string') return reply;
    return serializeMessage(reply);
  }

  /**
   * `handle()` plus the HTTP status of the outcome. The Outcome comes back directly (no promise at
   * all) when the handler finished synchronously; `await` it either way. It never throws and a
   * returned promise never rejects. Transports use `route()`, which makes no promise at all.
   */
  dispatch(message: unknown, facts: MessageFacts<Scope> = {}): Outcome | Promise<Outcome> {
    const later = new LaterOutcome();
    return this.route(message, facts, later) ?? new Promise<Outcome>((resolve) => (later.resolve = resolve)); // deliver() never comes before this
  }

  /**
   * The entry for transports: one message (text or parsed), what the transport knows about it, and
   * where an outcome that is not ready at once goes. Returns the Outcome when it is ready at once (a
   * synchronous handler, a notification, a refusal): then no promise is made anywhere. Otherwise
   * returns undefined and calls `sink.deliver()` exactly once, later. Never throws.
   */
  route(message: unknown, facts: MessageFacts<Scope>, sink: OutcomeSink): Outcome | undefined {
    return routeMessage(this.#core, message, facts, sink);
  }

  /**
   * 2025 HTTP GET stream: the session's notification channel (list changes, updates of subscribed
   * resources), raised on any instance sharing the state. `principal`: the request's (see
   * `principalOf`). 'unknown' when the id names no session of this principal, 'busy' when the session already has its stream. Call `close()` when the stream ends.
   */
  async watchSession(session: string, principal: string, send: Send): Promise<SessionWatch | 'unknown' | 'busy'> {
    await loadCrypto();
    const connection = this.#core.sessions.open(session, principal);
    if (connection?.id === undefined) return 'unknown';
    const watch = new SessionWatch(this.#core.state, connection.id, send, (error) => this.#core.reportError(error, undefined));
    return (await watch.claim()) ? watch : 'busy';
  }

  /**
   * A place for a long-lived stream a transport serves itself (the 2025 GET stream), in the quota
   * listen streams and `tasks/result` waits share (`maxStreams`, `maxStreamsPerPrincipal`), for the
   * caller `principal` (see `principalOf`): its release (call it once the stream ends; again does
   * nothing), or the 503 error naming the full bound.
   */
  holdStream(principal: string): (() => void) | McpError {
    const held = this.#core.streams.hold(principal);
    if (typeof held !== 'function' && firstTimeReached(this.#core, held)) this.#core.reportError(held, undefined);
    return held;
  }

  /** Who is asking, by the `principal` option, else the token ('' when neither names anyone): what transports key per-principal state by. */
  principalOf(scope: Scope | undefined, auth?: AuthInfo): string {
    return this.#core.principalOf(scope, auth);
  }

  /** A request made in code: the same path as the wire, errors thrown as McpError. */
  async #request(method: string, params: JsonObject, facts?: MessageFacts<Scope>): Promise<JsonObject> {
    const { reply } = await this.dispatch({ jsonrpc: '2.0', id: `local-${++this.#nextId}`, method, params }, facts);
    const error = reply?.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) throw Object.assign(internalError(error.message), { code: error.code, data: error.data });
    return reply?.result as JsonObject;
  }

}

/** Where `dispatch()` receives an outcome that was not ready at once. */
class LaterOutcome implements OutcomeSink {
  resolve: ((outcome: Outcome) => void) | undefined;

  deliver(outcome: Outcome): void {
    this.resolve!(outcome);
  }
}
