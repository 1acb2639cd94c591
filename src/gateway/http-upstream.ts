/**
 * A remote Streamable HTTP server as an upstream, in either protocol era: 2025 (`initialize`, then a
 * session id on every POST) or 2026 (`server/discover`, `_meta` on every request, `input_required`
 * answered by asking the caller and retrying). Its credentials are the gateway's own (`headers`): the
 * caller's token is never sent on (no token passthrough). Notifications and questions on a POST's
 * event stream belong to that POST's request.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { encodeHeaderValue } from '../protocol/standard-headers.js';
import { capabilitiesOf, initializeParams, UPSTREAM_STATELESS_VERSION } from './handshake.js';
import { statelessMeta, withInputRounds } from './stateless.js';
import { UpstreamInbound } from './inbound.js';
import { PendingRequests } from './pending.js';
import { withinTime } from './request-life.js';
import { events } from './sse-reader.js';
import { follow } from './follow.js';
import { ClientCredentials, type ClientCredentialsOptions } from './oauth-client.js';
import { type CallHooks, type ConnectionListener, type Upstream, type UpstreamCommon, UpstreamUnavailable } from './types.js';

class SessionLost extends UpstreamUnavailable {}

export interface HttpUpstreamOptions extends UpstreamCommon {
  url: string | URL;
  /** Sent on every request: the gateway's own credentials for this upstream (e.g. `authorization`). */
  headers?: Record<string, string>;
  /** 'handshake' (2025), 'stateless' (2026) or 'auto' (the default: `server/discover`, else `initialize`). */
  era?: 'handshake' | 'stateless' | 'auto';
  /**
   * The gateway's own OAuth client for this upstream (client-credentials grant): its token goes in
   * `authorization` on every request, renewed before it expires and once when the upstream answers 401.
   */
  oauth?: ClientCredentialsOptions | ClientCredentials;
  /** The fetch to use (tests, proxies of the network kind); default: the global one. */
  fetch?: typeof fetch;
}

/** How many times one request's event stream is resumed after the upstream closed it early (SEP-1699). */
const MAX_RESUMES = 8;
const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

export class HttpUpstream implements Upstream {
  readonly name: string;
  #capabilities: JsonObject = {};
  #stateless = false;
  #session: string | undefined;
  #version = '';
  #ready: Promise<void> | undefined;
  #following: AbortController | undefined;
  readonly #pending = new PendingRequests();
  readonly #inbound: UpstreamInbound;
  readonly #fetch: typeof fetch;
  readonly #max: number;
  readonly #oauth: ClientCredentials | undefined;

  constructor(private readonly options: HttpUpstreamOptions) {
    this.name = options.name ?? 'upstream';
    const log = options.log ?? ((line: string) => console.error(line));
    this.#inbound = new UpstreamInbound(this.#pending, (line) => log(`[minimcp gateway ${this.name}] ${line}`));
    this.#fetch = options.fetch ?? fetch;
    this.#max = options.maxMessageBytes ?? 4 * 1_048_576;
    const oauth = options.oauth;
    this.#oauth = oauth === undefined || oauth instanceof ClientCredentials ? oauth : new ClientCredentials({ fetch: this.#fetch, ...oauth });
  }

  /**
   * Every HTTP exchange with the upstream. With an OAuth client, its token is added; a 401 drops that
   * token and the request is sent once more with a new one; a second 401 fails clearly.
   */
  async #send(init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    if (this.#oauth === undefined) return this.#fetch(this.options.url, init);
    for (let attempt = 0; ; attempt++) {
      const token = await this.#oauth.token();
      // The client's token replaces any static authorization header, whatever its case.
      const headers = Object.fromEntries(Object.entries(init.headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
      const response = await this.#fetch(this.options.url, { ...init, headers: { ...headers, authorization: `Bearer ${token}` } });
      if (response.status !== 401) return response;
      await response.body?.cancel();
      this.#oauth.refused(token);
      if (attempt > 0) throw new UpstreamUnavailable(`Upstream ${this.name} refused the gateway's access token (HTTP 401, also after getting a new one)`);
    }
  }

  get capabilities(): JsonObject {
    return this.#capabilities;
  }

  /** The protocol family the upstream speaks, once started. */
  get era(): 'handshake' | 'stateless' {
    return this.#stateless ? 'stateless' : 'handshake';
  }

  start(): Promise<void> {
    return (this.#ready ??= withinTime(this.#connect(), this.options.startTimeoutMs ?? 10_000, `Upstream ${this.name} did not answer`).catch((error: unknown) => {
      this.#ready = undefined; // the next request tries again
      throw error;
    }));
  }

  listen(listener: ConnectionListener): () => void {
    return this.#inbound.listen(listener);
  }

  async close(): Promise<void> {
    this.#following?.abort();
    this.#pending.failAll(`Upstream ${this.name} closed`);
    const session = this.#session;
    this.#session = undefined;
    if (session !== undefined) await this.#send({ method: 'DELETE', headers: this.#headers() }).then((r) => r.body?.cancel(), () => {});
  }

  async request(method: string, params: JsonObject, hooks: CallHooks = {}): Promise<JsonObject> {
    await this.start();
    if (!this.#stateless) return this.#inSession(method, params, hooks);
    // 2026: input_required is answered by asking the caller (the era bridge, the other way).
    return withInputRounds(this.name, method, params, hooks, (m, sent, detached) => this.#exchange(m, sent, detached ? { ...hooks, signal: undefined } : hooks));
  }

  /** 2025: a session the upstream no longer knows (it restarted) is opened again once, and the request sent again. */
  async #inSession(method: string, params: JsonObject, hooks: CallHooks): Promise<JsonObject> {
    const session = this.#session;
    try {
      return await this.#exchange(method, params, hooks);
    } catch (error) {
      if (!(error instanceof SessionLost)) throw error;
      if (this.#session === session) {
        this.#session = undefined;
        this.#ready = undefined;
      }
      await this.start();
      return this.#exchange(method, params, hooks);
    }
  }

  async #connect(): Promise<void> {
    await this.#open();
    // One follower per connection: a new session (after a restart) starts a new one.
    this.#following?.abort();
    const following = new AbortController();
    this.#following = following;
    const reply = (message: JsonObject) => void this.#postMessage(message).catch(() => {});
    // The listen request's own answer (when the stream ends) concerns nobody.
    const receive = (message: JsonObject) => typeof message.method === 'string' && this.#inbound.receive(message, reply);
    const host = { open: (signal: AbortSignal) => this.#openStream(signal), receive, maxBytes: this.#max };
    void follow(host, following.signal);
  }

  /** The stream of connection-wide notifications: 2025 GET, 2026 `subscriptions/listen` for the list changes. */
  async #openStream(signal: AbortSignal): Promise<Response | undefined> {
    const headers = this.#stateless ? this.#headers('subscriptions/listen') : { ...this.#headers(), accept: 'text/event-stream' };
    const filter = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };
    const body = this.#stateless ? JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'subscriptions/listen', params: statelessMeta({ notifications: filter }, 0, {}) }) : undefined;
    const response = await this.#send({ method: this.#stateless ? 'POST' : 'GET', headers, body: body ?? null, signal });
    if (response.ok) return response;
    await response.body?.cancel();
    return undefined;
  }

  async #open(): Promise<void> {
    if (this.options.era !== 'handshake' && (await this.#discover())) return;
    const { answer } = await this.#post('initialize', initializeParams(), {});
    const result = await answer;
    this.#capabilities = capabilitiesOf(result);
    this.#version = typeof result.protocolVersion === 'string' ? result.protocolVersion : '2025-11-25';
    await this.#notify('notifications/initialized');
    if (isObject(this.#capabilities.logging)) await this.#exchange('logging/setLevel', { level: 'debug' }, {}).catch(() => {});
  }

  /** 2026 first: a server that answers `server/discover` with a result is stateless. */
  async #discover(): Promise<boolean> {
    this.#stateless = true;
    this.#version = UPSTREAM_STATELESS_VERSION;
    try {
      const result = await (await this.#post('server/discover', {}, {})).answer;
      this.#capabilities = capabilitiesOf(result);
      return true;
    } catch (error) {
      this.#stateless = false;
      this.#version = '';
      if (this.options.era === 'stateless') throw error;
      return false;
    }
  }

  #exchange(method: string, params: JsonObject, hooks: CallHooks): Promise<JsonObject> {
    return this.#post(method, params, hooks).then(({ answer }) => answer);
  }

  #headers(method?: string, params?: JsonObject): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.#version !== '') headers['mcp-protocol-version'] = this.#version;
    if (this.#session !== undefined) headers['mcp-session-id'] = this.#session;
    if (this.#stateless && method !== undefined) {
      headers['mcp-method'] = method;
      const field = NAME_FIELD[method];
      const value = field === undefined ? undefined : params?.[field];
      if (typeof value === 'string') headers['mcp-name'] = encodeHeaderValue(value);
    }
    return headers;
  }

  #meta(params: JsonObject, id: number, hooks: CallHooks): JsonObject {
    if (this.#stateless) return statelessMeta(params, id, hooks);
    return { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: id } };
  }

  /** Sends one request; the answer settles from the body (JSON, or the event stream read in the background). */
  async #post(method: string, params: JsonObject, hooks: CallHooks): Promise<{ answer: Promise<JsonObject> }> {
    const { id, answer } = this.#pending.open(hooks);
    const controller = new AbortController();
    const onAbort = () => this.#cancelled(id, controller, hooks.signal?.reason);
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    const settled = answer.finally(() => hooks.signal?.removeEventListener('abort', onAbort));
    settled.catch(() => {});
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: this.#meta(params, id, hooks) });
      const response = await this.#send({ method: 'POST', headers: this.#headers(method, params), body, signal: controller.signal });
      this.#readAnswer(id, response, hooks);
    } catch (error) {
      const unavailable = error instanceof UpstreamUnavailable ? error : new UpstreamUnavailable(`Upstream ${this.name} could not be reached`);
      this.#pending.fail(id, hooks.signal?.aborted ? (error as Error) : unavailable);
    }
    return { answer: settled };
  }

  #cancelled(id: number, controller: AbortController, reason: unknown): void {
    if (!this.#stateless) this.#notify('notifications/cancelled', { requestId: id, reason: 'The caller cancelled' }).catch(() => {});
    this.#pending.fail(id, reason instanceof Error ? reason : new Error('cancelled'));
    controller.abort();
  }

  #readAnswer(id: number, response: Response, hooks: CallHooks): void {
    // 404 is the spec's answer to a session it does not know; some servers answer 400.
    if (this.#session !== undefined && (response.status === 404 || response.status === 400)) {
      response.body?.cancel().catch(() => {});
      this.#pending.fail(id, new SessionLost(`Upstream ${this.name} no longer knows the session`));
      return;
    }
    const session = response.headers.get('mcp-session-id');
    if (session !== null && !this.#stateless) this.#session = session;
    const type = response.headers.get('content-type') ?? '';
    const fail = (error: unknown) => this.#pending.fail(id, error instanceof Error && hooks.signal?.aborted ? error : new UpstreamUnavailable(`Upstream ${this.name}: ${(error as Error)?.message ?? 'broken answer'}`));
    if (type.includes('text/event-stream') && response.body !== null) {
      this.#followAnswer(id, response.body, hooks).then(() => fail(new Error('the event stream ended without an answer')), fail);
      return;
    }
    this.#readJson(response).then((message) => {
      if (!this.#pending.settle(message)) throw new Error(`HTTP ${response.status} without a JSON-RPC answer`);
    }).catch(fail);
  }

  async #readJson(response: Response): Promise<JsonObject> {
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > this.#max) throw new Error(`an answer over ${this.#max} bytes`);
    const text = await response.text();
    if (text.length > this.#max) throw new Error(`an answer over ${this.#max} bytes`);
    const message = JSON.parse(text) as unknown;
    if (!isObject(message)) throw new Error(`HTTP ${response.status} without a JSON-RPC answer`);
    return message;
  }

  /**
   * Reads a request's event stream. A 2025 upstream that ends it before the answer (SEP-1699 polling,
   * its `closeStream()`) is resumed with a GET carrying the last event id, at most MAX_RESUMES times;
   * the caller's stream is closed too (`ctx.closeStream()`), so a caller that resumes sees the same.
   */
  async #followAnswer(id: number, body: ReadableStream<Uint8Array>, hooks: CallHooks): Promise<void> {
    let lastId = await this.#readStream(body, hooks);
    for (let resumes = 0; resumes < MAX_RESUMES && lastId !== undefined && this.#session !== undefined && this.#pending.hooksOf(id) !== undefined; resumes++) {
      hooks.closeStream?.();
      const headers = { ...this.#headers(), accept: 'text/event-stream', 'last-event-id': lastId };
      const response = await this.#send({ method: 'GET', headers, signal: hooks.signal ?? null });
      if (!response.ok || response.body === null) {
        await response.body?.cancel();
        return;
      }
      lastId = (await this.#readStream(response.body, hooks)) ?? lastId;
    }
  }

  /** Reads an event stream to its end; returns the last event id seen. */
  async #readStream(body: ReadableStream<Uint8Array>, hooks: CallHooks): Promise<string | undefined> {
    const reply = (message: JsonObject) => void this.#postMessage(message).catch(() => {});
    let lastId: string | undefined;
    for await (const event of events(body, this.#max)) {
      if (event.id !== undefined && event.id !== '') lastId = event.id;
      if (event.data === undefined) continue;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        continue;
      }
      if (isObject(message)) this.#inbound.receive(message, reply, hooks);
    }
    return lastId;
  }

  #notify(method: string, params?: JsonObject): Promise<void> {
    return this.#postMessage(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** A notification or a response to the upstream's request: accepted with 202, nothing to read. */
  async #postMessage(message: JsonObject): Promise<void> {
    const method = typeof message.method === 'string' ? message.method : undefined;
    const response = await this.#send({ method: 'POST', headers: this.#headers(method), body: JSON.stringify(message) });
    await response.body?.cancel();
  }
}

