/**
 * `minimcp/testing`: an MCP client that talks to a MiniMCP instance in process, with no transport, for
 * users' own tests. It speaks either era over `mcp.dispatch()` exactly as a real client would (the
 * 2025 handshake, or the 2026 `_meta` envelope with MRTR rounds), so a test exercises the same
 * validation, hooks and error mapping as production.
 */
import { notificationOf } from '../state/bus.js';
import type { Connection, Send } from '../transport.js';
import { InsufficientScopeError, McpError } from '../protocol/errors.js';
import type { AuthInfo } from '../protocol/auth-info.js';
import { testToken, type TestToken } from './test-token.js';
import type { JsonObject, JsonRpcMessage } from '../protocol/jsonrpc.js';
import { HANDSHAKE_VERSIONS, META, STATELESS_VERSIONS } from '../protocol/versions.js';
import type { CompletionResult } from '../primitives/completions.js';
import type { MiniMCP } from '../server.js';
import type { ScopedOptions } from '../transports/scoped-options.js';
import type {
  CallToolResult, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
  GetPromptResult, Implementation, ListRootsResult, LoggingLevel, ReadResourceResult,
} from '../protocol/mcp-types.js';

export type TestEra = '2025-11-25' | '2026-07-28';
export type { TestToken } from './test-token.js';

import type { MaybePromise } from '../protocol/mcp-types.js';

export interface TestClientOptions<Scope> {
  /** The protocol revision to speak. Default '2025-11-25'. */
  era?: TestEra;
  /** The caller's scope, as a transport's scope factory would produce it. */
  scope?: Scope;
  /**
   * An access token on every request, as the HTTP `auth` option would have verified it: `ctx.auth` is
   * this token, its `iss` + `sub` the principal, per-operation `scopes` are checked against its scopes
   * (a missing one throws `InsufficientScopeError`, the 403 step-up over HTTP) and lists leave out what
   * it cannot use. Without it, requests carry no token and no scope applies (as on stdio).
   */
  auth?: TestToken;
  clientInfo?: Implementation;
  /** Answers `ctx.elicit()`; declaring it declares the elicitation capability (form and URL). */
  onElicit?: (params: ElicitParams) => MaybePromise<ElicitResult>;
  /** Answers `ctx.sample()`; declares the sampling capability. */
  onSample?: (params: CreateMessageParams) => MaybePromise<CreateMessageResult>;
  /** Answers `ctx.listRoots()`; declares the roots capability. */
  onRoots?: () => MaybePromise<ListRootsResult>;
  /** Log messages (`ctx.log()`) of every request. */
  onLog?: (message: { level: LoggingLevel; data: unknown; logger?: string }) => void;
  /** Logs at or above this level are sent. Default 'debug' (everything). */
  logLevel?: LoggingLevel;
  /** Replaces the capabilities derived from the handlers above. */
  capabilities?: ClientCapabilities;
}

export interface CallOptions {
  /** Asks for progress (a progressToken is sent) and receives each `ctx.progress()`. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * Cancels the request as a client does: `notifications/cancelled` (with the abort reason's message),
   * so the server answers nothing and the call rejects with the signal's reason (an AbortError).
   */
  signal?: AbortSignal;
  /** Extra `params._meta` fields. */
  meta?: JsonObject;
}

export interface ListenFilter {
  tools?: boolean;
  prompts?: boolean;
  resources?: boolean;
  /** URIs whose `notifications/resources/updated` you want. */
  resourceUris?: string[];
}

export interface Listening {
  /** Every notification received so far, in order. */
  readonly notifications: { method: string; params?: JsonObject }[];
  /** Stops listening (ends the 2026 stream). */
  close(): Promise<void>;
}

/** An `events/stream` subscription held open by the test client. */
export interface EventStreaming {
  /** Every `notifications/events/*` so far, in order (`active` first). */
  readonly notifications: { method: string; params?: JsonObject }[];
  /** The occurrences (`notifications/events/event` params) so far. */
  readonly events: JsonObject[];
  /** Ends the stream as a client does (the server releases what it held). */
  close(): Promise<void>;
}

export interface TestClient {
  readonly era: TestEra;
  /** The server's answer to `initialize` (2025) or `server/discover` (2026). */
  connect(): Promise<JsonObject>;
  callTool<Structured = unknown>(name: string, args?: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult & { structuredContent?: Structured }>;
  getPrompt(name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  complete(ref: { prompt: string } | { template: string }, argument: { name: string; value: string }, context?: Record<string, string>): Promise<CompletionResult>;
  listTools(): Promise<JsonObject[]>;
  listPrompts(): Promise<JsonObject[]>;
  listResources(): Promise<JsonObject[]>;
  listResourceTemplates(): Promise<JsonObject[]>;
  /** list_changed and resource updates, as a client would receive them; `onNotification` sees each one. */
  listen(filter?: ListenFilter, onNotification?: (n: { method: string; params?: JsonObject }) => void): Promise<Listening>;
  /** Any request; the result as sent (errors thrown as McpError). */
  request<T = JsonObject>(method: string, params?: JsonObject, options?: CallOptions): Promise<T>;
  /** `events/list`, every page. */
  listEvents(): Promise<JsonObject[]>;
  /** One `events/poll` (cursor null or absent: from now). */
  pollEvents(name: string, args?: JsonObject, cursor?: string | null, options?: { maxEvents?: number; maxAgeMs?: number }): Promise<JsonObject>;
  /** Opens an `events/stream` push subscription; resolves once `active` arrived (a refusal rejects). */
  streamEvents(name: string, args?: JsonObject, options?: { cursor?: string | null; onNotification?: OnNotification }): Promise<EventStreaming>;
}

/** An error reply becomes the McpError it was, code and data included (even codes the constructor reserves). */
function toError(error: { code: number; message: string; data?: unknown }): McpError {
  const thrown = new McpError(-32603, error.message, error.data);
  Object.defineProperty(thrown, 'code', { value: error.code });
  return thrown;
}

const MAX_INPUT_ROUNDS = 16;

/** Creates a client for `mcp`. Call `connect()` first, or let the first request do it. */
/**
 * A client for `mcp`, in process. When the server declares a Scope type that does not allow `undefined`
 * (`new MiniMCP<{ user: string }>`), `scope` is required, as for serve() and the other transports: a
 * test without it would meet `ctx.scope === undefined` where the handler's type says otherwise.
 */
export function createTestClient<Scope>(mcp: MiniMCP<Scope>, ...options: ScopedOptions<Scope, TestClientOptions<NoInfer<Scope>>>): TestClient;
export function createTestClient<Scope>(mcp: MiniMCP<Scope>, options: TestClientOptions<Scope> = {}): TestClient {
  return new InProcessClient(mcp, options);
}

type OnNotification = (n: { method: string; params?: JsonObject }) => void;

class InProcessClient<Scope> implements TestClient {
  readonly era: TestEra;
  readonly #mcp: MiniMCP<Scope>;
  readonly #options: TestClientOptions<Scope>;
  readonly #modern: boolean;
  readonly #clientInfo: Implementation;
  readonly #capabilities: ClientCapabilities;
  readonly #connection: Connection = { id: `test-${Math.random().toString(36).slice(2)}` };
  /** Who asks on every request: the scope and the token, as a transport hands them to dispatch. */
  readonly #caller: { scope: Scope | undefined; auth?: AuthInfo };
  #nextId = 0;
  #connected: Promise<JsonObject> | undefined;

  constructor(mcp: MiniMCP<Scope>, options: TestClientOptions<Scope>) {
    const era = options.era ?? '2025-11-25';
    if (era !== '2025-11-25' && era !== '2026-07-28') throw new TypeError(`createTestClient: unknown era ${String(era)}`);
    this.era = era;
    this.#mcp = mcp;
    this.#options = options;
    this.#modern = era === '2026-07-28';
    this.#clientInfo = options.clientInfo ?? { name: 'minimcp-test-client', version: '1.0.0' };
    this.#caller = options.auth === undefined ? { scope: options.scope } : { scope: options.scope, auth: testToken(options.auth) };
    this.#capabilities = options.capabilities ?? {
      ...(options.onElicit && { elicitation: { form: {}, url: {} } }),
      ...(options.onSample && { sampling: {} }),
      ...(options.onRoots && { roots: {} }),
    };
  }

  connect(): Promise<JsonObject> {
    return (this.#connected ??= this.#handshake());
  }

  callTool<Structured = unknown>(name: string, args: Record<string, unknown> = {}, call?: CallOptions) {
    return this.request<CallToolResult & { structuredContent?: Structured }>('tools/call', { name, arguments: args as JsonObject }, call);
  }

  getPrompt(name: string, args: Record<string, string> = {}, call?: CallOptions): Promise<GetPromptResult> {
    return this.request('prompts/get', { name, arguments: args }, call);
  }

  readResource(uri: string, call?: CallOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri }, call);
  }

  async complete(ref: { prompt: string } | { template: string }, argument: { name: string; value: string }, context?: Record<string, string>): Promise<CompletionResult> {
    const params: JsonObject = { ref: 'prompt' in ref ? { type: 'ref/prompt', name: ref.prompt } : { type: 'ref/resource', uri: ref.template }, argument };
    if (context) params.context = { arguments: context };
    return (await this.request('completion/complete', params)).completion as unknown as CompletionResult;
  }

  listTools = (): Promise<JsonObject[]> => this.#listAll('tools/list', 'tools');
  listPrompts = (): Promise<JsonObject[]> => this.#listAll('prompts/list', 'prompts');
  listResources = (): Promise<JsonObject[]> => this.#listAll('resources/list', 'resources');
  listResourceTemplates = (): Promise<JsonObject[]> => this.#listAll('resources/templates/list', 'resourceTemplates');
  listEvents = (): Promise<JsonObject[]> => this.#listAll('events/list', 'events');

  pollEvents(name: string, args: JsonObject = {}, cursor: string | null = null, options: { maxEvents?: number; maxAgeMs?: number } = {}): Promise<JsonObject> {
    return this.request('events/poll', { name, arguments: args, cursor, ...options });
  }

  async streamEvents(name: string, args: JsonObject = {}, options: { cursor?: string | null; onNotification?: OnNotification } = {}): Promise<EventStreaming> {
    await this.connect();
    const abort = new AbortController();
    const notifications: EventStreaming['notifications'] = [];
    const events: JsonObject[] = [];
    let active!: () => void;
    const ready = new Promise<void>((resolve) => (active = resolve));
    const receive: OnNotification = (n) => {
      if (!n.method.startsWith('notifications/events/')) return;
      notifications.push(n);
      if (n.method === 'notifications/events/event' && n.params) events.push(n.params);
      if (n.method === 'notifications/events/active') active();
      options.onNotification?.(n);
    };
    const stream = this.#send('events/stream', { name, arguments: args, cursor: options.cursor ?? null }, undefined, receive, abort.signal);
    await Promise.race([ready, stream]); // a refused subscription is an error reply before any frame
    return {
      notifications,
      events,
      close: async () => {
        abort.abort();
        await stream.catch(() => {});
      },
    };
  }

  /** 2026 MRTR: answers each `input_required` round with the handlers, then retries. */
  async request<T = JsonObject>(method: string, params: JsonObject = {}, call?: CallOptions): Promise<T> {
    await this.connect();
    let result = await this.#send(method, params, call);
    for (let round = 0; this.#modern && result.resultType === 'input_required'; round++) {
      if (round === MAX_INPUT_ROUNDS) throw new Error(`${method} still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
      const inputResponses: JsonObject = {};
      const asked = (result.inputRequests ?? {}) as Record<string, { method: string; params: JsonObject }>;
      for (const [key, input] of Object.entries(asked)) inputResponses[key] = await this.#answer(input.method, input.params ?? {});
      const retry: JsonObject = { ...params, inputResponses };
      if (result.requestState !== undefined) retry.requestState = result.requestState;
      result = await this.#send(method, retry, call);
    }
    return result as T;
  }

  async listen(filter: ListenFilter = { tools: true, prompts: true, resources: true }, onNotification?: OnNotification): Promise<Listening> {
    await this.connect();
    const notifications: Listening['notifications'] = [];
    const receive: OnNotification = (n) => {
      notifications.push(n);
      onNotification?.(n);
    };
    const close = this.#modern ? await this.#listenModern(filter, receive) : this.#listenLegacy(filter, receive);
    return { notifications, close };
  }

  /** 2025: the transport forwards the server's bus to its connection; this client is that transport. */
  #listenLegacy(filter: ListenFilter, receive: OnNotification): () => Promise<void> {
    const wanted = (type: string, uri?: string): boolean =>
      type === 'resources/updated' ? filter.resourceUris?.includes(uri!) === true
        : filter[type.slice(0, type.indexOf('/')) as 'tools' | 'prompts' | 'resources'] === true;
    const unsubscribe = this.#mcp.bus.subscribe((event) => {
      if (!wanted(event.type, 'uri' in event ? event.uri : undefined)) return;
      const { method, params } = notificationOf(event);
      receive(params ? { method, params } : { method });
    });
    return async () => void unsubscribe();
  }

  /** 2026: a `subscriptions/listen` stream, open once acknowledged, ended by aborting it. */
  async #listenModern(filter: ListenFilter, receive: OnNotification): Promise<() => Promise<void>> {
    const abort = new AbortController();
    let acknowledged!: () => void;
    const ready = new Promise<void>((resolve) => (acknowledged = resolve));
    const notifications: JsonObject = {
      toolsListChanged: filter.tools === true,
      promptsListChanged: filter.prompts === true,
      resourcesListChanged: filter.resources === true,
    };
    if (filter.resourceUris) notifications.resourceSubscriptions = filter.resourceUris;
    // Ended as a real client ends it: by closing the stream (the transport's signal), not by a cancel.
    const stream = this.#send('subscriptions/listen', { notifications }, undefined, (n) =>
      n.method === 'notifications/subscriptions/acknowledged' ? acknowledged() : receive(n), abort.signal);
    await Promise.race([ready, stream]);
    return async () => {
      abort.abort();
      await stream.catch(() => {}); // a listen stream the client closes gets no answer
    };
  }

  async #handshake(): Promise<JsonObject> {
    if (this.#modern) return this.#send('server/discover', {});
    const result = await this.#send('initialize', {
      protocolVersion: HANDSHAKE_VERSIONS[0], capabilities: this.#capabilities as JsonObject, clientInfo: this.#clientInfo as unknown as JsonObject,
    });
    await this.#mcp.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, { ...this.#caller, connection: this.#connection });
    if (this.#options.logLevel) await this.#send('logging/setLevel', { level: this.#options.logLevel });
    return result;
  }

  async #answer(method: string, params: JsonObject): Promise<JsonObject> {
    const { onElicit, onSample, onRoots } = this.#options;
    if (method === 'elicitation/create' && onElicit) return (await onElicit(params as ElicitParams)) as JsonObject;
    if (method === 'sampling/createMessage' && onSample) return (await onSample(params as CreateMessageParams)) as JsonObject;
    if (method === 'roots/list' && onRoots) return (await onRoots()) as JsonObject;
    throw new Error(`The test client has no handler for ${method} (pass onElicit, onSample or onRoots)`);
  }

  /** The channel back from the server: notifications to the callbacks, 2025 requests to the handlers. */
  #channel(call: CallOptions | undefined, onNotification?: OnNotification): Send {
    return (message: JsonRpcMessage) => {
      const m = message as unknown as JsonObject;
      if (typeof m.method !== 'string') return;
      const params = m.params as JsonObject | undefined;
      if (m.id !== undefined) return this.#answerLater(m.id as string | number, m.method, params ?? {});
      if (m.method === 'notifications/progress' && params) {
        const { progress, total, message: text } = params as { progress: number; total?: number; message?: string };
        call?.onProgress?.({ progress, ...(total !== undefined && { total }), ...(text !== undefined && { message: text }) });
      } else if (m.method === 'notifications/message' && params) {
        this.#options.onLog?.(params as { level: LoggingLevel; data: unknown; logger?: string });
      }
      onNotification?.(params === undefined ? { method: m.method } : { method: m.method, params });
    };
  }

  /** A 2025 server request: answered by the handler, the answer routed back through dispatch. */
  #answerLater(id: string | number, method: string, params: JsonObject): void {
    // The answer comes back on the same connection, from the same caller, as a real client's would.
    const opts = { ...this.#caller, connection: this.#connection };
    this.#answer(method, params).then(
      (result) => void this.#mcp.dispatch({ jsonrpc: '2.0', id, result }, opts),
      (error: unknown) => void this.#mcp.dispatch({ jsonrpc: '2.0', id, error: { code: -32603, message: String((error as Error)?.message ?? error) } }, opts),
    );
  }

  #envelope(params: JsonObject, call: CallOptions | undefined, progressToken: string): JsonObject {
    const meta: JsonObject = { ...call?.meta };
    if (call?.onProgress) meta.progressToken = progressToken;
    if (this.#modern) {
      meta[META.protocolVersion] = STATELESS_VERSIONS[0];
      meta[META.clientCapabilities] = this.#capabilities as JsonObject;
      meta[META.clientInfo] = this.#clientInfo as unknown as JsonObject;
      meta[META.logLevel] = this.#options.logLevel ?? 'debug';
    }
    return Object.keys(meta).length ? { ...params, _meta: meta } : params;
  }

  async #send(method: string, params: JsonObject, call?: CallOptions, onNotification?: OnNotification, closed?: AbortSignal): Promise<JsonObject> {
    const id = `test-${++this.#nextId}`;
    const cancel = call?.signal;
    cancel?.throwIfAborted();
    const caller = { ...this.#caller, connection: this.#modern ? undefined : this.#connection };
    const opts = { ...caller, send: this.#channel(call, onNotification), signal: closed };
    const onAbort = () => {
      const reason = cancel?.reason instanceof Error ? cancel.reason.message : String(cancel?.reason);
      void this.#mcp.dispatch({ jsonrpc: '2.0', method: 'notifications/cancelled', params: this.#envelope({ requestId: id, reason }, undefined, id) }, caller);
    };
    cancel?.addEventListener('abort', onAbort, { once: true });
    let reply: JsonObject | undefined;
    let scopes: readonly string[] | undefined;
    try {
      ({ reply, scopes } = await this.#mcp.dispatch({ jsonrpc: '2.0', id, method, params: this.#envelope(params, call, id) }, opts));
    } finally {
      cancel?.removeEventListener('abort', onAbort);
    }
    if (reply === undefined) throw cancel?.aborted ? cancel.reason : new Error(`${method} got no answer (cancelled by the client)`);
    // The step-up refusal the HTTP transport turns into its 403 challenge: the same error, with the scopes it needs.
    if (scopes !== undefined) throw new InsufficientScopeError(scopes);
    const error = reply.error as { code: number; message: string; data?: unknown } | undefined;
    if (error) throw toError(error);
    return reply.result as JsonObject;
  }

  async #listAll(method: string, key: string): Promise<JsonObject[]> {
    const items: JsonObject[] = [];
    let cursor: unknown;
    do {
      const page = await this.request(method, cursor === undefined ? {} : { cursor: cursor as string });
      items.push(...((page[key] ?? []) as JsonObject[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return items;
  }
}
