/**
 * MiniMCP: registration, and `handle()`, the one function every transport wraps (the options live in
 * options.ts). Handlers are registered once; nothing here is rebuilt per request and no session is kept.
 */
import { loadCrypto } from './context/request-state.js';
import type { Core, Hooks, MessageFacts, Outcome, OutcomeSink, Send } from './core.js';
import { Call } from './request/call.js';
import { ownerKey } from './state/answers.js';
import { cancelKey } from './state/cancels.js';
import type { NotificationBus } from './state/bus.js';
import type { SharedState } from './state/index.js';
import { SessionWatch } from './state/session-watch.js';
import { NO_REPLY, errorOutcome } from './request/outcome.js';
import { ErrorCode, McpError, internalError, invalidRequest } from './protocol/errors.js';
import { parseJson, readEnvelope, serializeMessage, type JsonObject, type RequestId } from './protocol/jsonrpc.js';
import { PromptRegistry, type PromptArgument, type PromptHandler, type PromptOptions } from './primitives/prompts.js';
import {
  ResourceRegistry, type ResourceOptions, type ResourceReader, type TemplateOptions, type TemplateReader,
} from './primitives/resources.js';
import { ToolRegistry, type ToolHandler, type ToolOptions } from './primitives/tools.js';
import { ListView, VIEW, Visibility, type Caller } from './primitives/visibility.js';
import type { SchemaCheck, SchemaLike } from './schema/standard-schema.js';
import type { Implementation } from './types.js';
import { TASKS_EXTENSION } from './tasks/wire.js';
import type { Era } from './protocol/versions.js';
import { principalFrom, wire, type MiniMCPOptions } from './options.js';

export type { MiniMCPOptions } from './options.js';

export class MiniMCP<Scope = unknown> {
  readonly #core: Core<Scope>;
  readonly #force: NonNullable<MiniMCPOptions['capabilities']>;
  #capabilities: Partial<Record<Era, JsonObject>> = {};
  #nextId = 0;

  constructor(options: MiniMCPOptions<Scope>) {
    const wired = wire(options as MiniMCPOptions<never>);
    const bus = wired.state.bus;
    this.#force = options.capabilities ?? {};
    const changed = (type: 'tools' | 'prompts' | 'resources') => () => {
      this.#capabilities = {};
      bus.publish({ type: `${type}/list_changed` });
    };
    const onError = options.onError ?? ((error, request) => console.error(`[minimcp] ${request?.method ?? 'transport'} failed:`, error));
    const onDebug = options.onDebug ?? ((message: string) => console.error(`[minimcp] ${message}`));
    if (options.visible !== undefined && typeof options.visible !== 'function') throw new TypeError('MiniMCP option visible must be a function');
    const visibility = new Visibility<Scope>(options.visible, (error) => this.#core.reportError(error, undefined));
    this.#core = {
      ...wired,
      tools: new ToolRegistry<Scope>(changed('tools'), options.toJsonSchema, visibility),
      prompts: new PromptRegistry<Scope>(changed('prompts'), options.toJsonSchema, visibility),
      resources: new ResourceRegistry<Scope>(changed('resources'), visibility),
      hooks: [],
      // Both eras advertise the same set, except tasks: core in 2025, an extension in 2026.
      capabilities: (era, caller) => this.#capabilitiesFor(era, caller),
      principalOf: (scope) => principalFrom(scope, options.principal),
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
  }

  /** Server facts as sent in `initialize` and `server/discover`. */
  get info(): Implementation {
    return this.#core.info;
  }

  /** The notification bus (list changes, resource updates); transports subscribe to it. */
  get bus(): NotificationBus {
    return this.#core.state.bus;
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
    try {
      let value = message;
      if (typeof message === 'string') {
        const parsed = parseJson(message);
        if (!parsed.ok) return errorOutcome(null, parsed.error);
        value = parsed.value;
      }
      const envelope = readEnvelope(value);
      switch (envelope.kind) {
        case 'invalid':
          return errorOutcome(envelope.id, envelope.error);
        case 'request':
          return new Call(this.#core, envelope.id, envelope.method, envelope.params, facts, sink).run();
        case 'notification':
          this.#onNotification(envelope.method, envelope.params, facts);
          return NO_REPLY;
        case 'response': {
          const principal = this.#principalOf(facts);
          const connectionId = this.#connectionId(facts, principal);
          const routed = connectionId !== null && this.#core.state.answers.answer(envelope.id, ownerKey(principal, connectionId), envelope.result, envelope.error);
          if (typeof routed === 'boolean') return answered(routed, envelope.id);
          // A shared route answers later: the sink gets the outcome (a broken route is -32603, never a hang).
          routed.then((ok) => sink.deliver(answered(ok, envelope.id)), (error: unknown) => {
            this.#core.reportError(error, undefined);
            sink.deliver(errorOutcome(envelope.id, internalError('Internal error: the answer could not be routed')));
          });
          return undefined;
        }
      }
    } catch (error) {
      this.#core.reportError(error, undefined);
      return errorOutcome(null, new McpError(ErrorCode.InternalError, 'Internal error', undefined, 500));
    }
  }

  /**
   * 2025 HTTP GET stream: the session's notification channel (list changes, updates of subscribed
   * resources), raised on any instance sharing the state. 'unknown' when the id names no session of
   * this principal, 'busy' when the session already has its stream. Call `close()` when the stream ends.
   */
  async watchSession(session: string, scope: Scope | undefined, send: Send): Promise<SessionWatch | 'unknown' | 'busy'> {
    await loadCrypto();
    const connection = this.#core.sessions.open(session, this.#core.principalOf(scope));
    if (connection?.id === undefined) return 'unknown';
    const watch = new SessionWatch(this.#core.state, connection.id, send, (error) => this.#core.reportError(error, undefined));
    return (await watch.claim()) ? watch : 'busy';
  }

  /** Who is asking, by the `principal` option ('' when it is unset or says nothing): what transports key per-principal state by. */
  principalOf(scope: Scope | undefined): string {
    return this.#core.principalOf(scope);
  }

  #principalOf(facts: MessageFacts<Scope>): string {
    return facts.principal ?? this.#core.principalOf(facts.scope);
  }

  /**
   * The connection a notification or client response belongs to: the transport's, or the session it
   * presented. null when it presented one that names no session of this principal: nothing matches.
   */
  #connectionId(facts: MessageFacts<Scope>, principal: string): string | undefined | null {
    if (facts.connection !== undefined || facts.session === undefined) return facts.connection?.id;
    // Without node:crypto loaded, this process minted no session: nothing here can belong to one.
    if (loadCrypto() !== undefined) return null;
    return this.#core.sessions.open(facts.session, principal)?.id ?? null;
  }

  #onNotification(method: string, params: JsonObject | undefined, facts: MessageFacts<Scope>): void {
    if (method === 'notifications/initialized') {
      if (facts.connection) facts.connection.initialized = true;
    } else if (method === 'notifications/cancelled') {
      const id = params?.requestId;
      const principal = typeof id === 'string' || typeof id === 'number' ? this.#principalOf(facts) : undefined;
      const connectionId = principal === undefined ? null : this.#connectionId(facts, principal);
      if (connectionId !== null) {
        const key = cancelKey(principal!, connectionId, id as RequestId);
        this.#core.state.cancels.cancel(key, typeof params?.reason === 'string' ? params.reason : 'cancelled by the client');
      }
    }
    // Everything else (progress for our requests, roots/list_changed...) needs no action from a stateless core.
  }

  /** A request made in code: the same path as the wire, errors thrown as McpError. */
  async #request(method: string, params: JsonObject, facts?: MessageFacts<Scope>): Promise<JsonObject> {
    const { reply } = await this.dispatch({ jsonrpc: '2.0', id: `local-${++this.#nextId}`, method, params }, facts);
    const error = reply?.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) throw Object.assign(internalError(error.message), { code: error.code, data: error.data });
    return reply?.result as JsonObject;
  }

  /** Completions only for a caller who may see a completer: the capability must not hint at hidden primitives. */
  #capabilitiesFor(era: Era, caller: Caller<Scope> | undefined): JsonObject {
    const caps = (this.#capabilities[era] ??= this.#computeCapabilities(era));
    const core = this.#core;
    if (caller === undefined || caps.completions === undefined || core.prompts.hasCompletions(caller) || core.resources.hasCompletions(caller)) return caps;
    const { completions: _hidden, ...rest } = caps;
    return rest;
  }

  #computeCapabilities(era: Era): JsonObject {
    const core = this.#core;
    const caps: JsonObject = { logging: {} };
    if (core.tools.size || this.#force.tools) caps.tools = { listChanged: true };
    if (core.prompts.size || this.#force.prompts) caps.prompts = { listChanged: true };
    if (core.resources.size || this.#force.resources) caps.resources = { subscribe: true, listChanged: true };
    if (core.prompts.hasCompletions() || core.resources.hasCompletions()) caps.completions = {};
    if (core.tools.servesTasks()) {
      if (era === 'modern') caps.extensions = { [TASKS_EXTENSION]: {} };
      else caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    }
    return caps;
  }
}

/** A client response was taken (no reply), or nobody waits for it. */
function answered(ok: boolean, id: RequestId): Outcome {
  return ok ? NO_REPLY : errorOutcome(id, invalidRequest('Invalid Request: no request is waiting for this response'));
}

/** Where `dispatch()` receives an outcome that was not ready at once. */
class LaterOutcome implements OutcomeSink {
  resolve: ((outcome: Outcome) => void) | undefined;

  deliver(outcome: Outcome): void {
    this.resolve!(outcome);
  }
}
