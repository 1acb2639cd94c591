/**
 * The HTTP transport's protocol logic, written once for every runtime: the gate (errors.md §3),
 * dispatch, the JSON / SSE switch, session ids and keep-alives; GET (2025 streams) is in get-stream.ts.
 * Adapters only move bytes.
 */
import type { Outcome, OutcomeSink, Send } from '../../transport.js';
import { decideEra } from '../../protocol/era.js';
import { revisionOf } from '../../protocol/revisions/index.js';
import { isObject, serializeMessage, type JsonObject, type RequestId } from '../../protocol/jsonrpc.js';
import type { Era } from '../../protocol/revisions/revision.js';
import type { MiniMCP } from '../../server.js';
import type { CancelSignal } from '../../platform/cancellation.js';
import type { BodyRead, BodySink, Exchange } from './exchange.js';
import { ACCEPTS_JSON, ACCEPTS_SSE, acceptedTypes, isJsonContentType } from './media-types.js';
import { answerPreflight, corsAllows, withCors } from './cors.js';
import { hostAllowed, originAllowed } from './origin.js';
import type { Settings } from './options.js';
import { PostStream, streamOwner } from './sse.js';
import { serveGet } from './get-stream.js';
import { JSON_HEADERS, errorBody, isHttpError, refuse, refuseRate, refuseScope } from './refusals.js';
import { isMetadataRequest, principalFor, serveMetadata } from './auth-gate.js';
import { bodyLimitOf } from './method-bodies.js';
import type { AuthInfo } from '../../protocol/auth-info.js';
import { pathOf, serveDiscovery } from './card/answer.js';
import { rateKey, type RateLimited } from '../../limits/rate-limit.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The id of a parsed message, read without trusting its shape (null when absent or invalid). */
function idOf(value: unknown): RequestId | null {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function methodOf(value: unknown): string | undefined {
  const method = typeof value === 'object' && value !== null ? (value as { method?: unknown }).method : undefined;
  return typeof method === 'string' ? method : undefined;
}

/** The params of a request, read without trusting its shape. */
function paramsOf(value: unknown): JsonObject | undefined {
  const params = (value as { params?: unknown }).params;
  return isObject(params) ? params : undefined;
}

/**
 * One HTTP exchange from headers to the last byte. Never throws. Written without `async`: a request
 * whose handler answers synchronously goes from body to response without a single promise, which
 * matters on Node 20, where AsyncLocalStorage makes every promise cost.
 */
export function serveExchange<Scope>(mcp: MiniMCP<Scope>, settings: Settings, exchange: Exchange<Scope>): void {
  const cors = settings.cors;
  const ex = cors ? withCors(cors, exchange) : exchange;
  const post = new PostExchange(mcp, settings, ex);
  try {
    const hosts = settings.hosts;
    if (hosts && !hostAllowed(hosts, ex.get('host'))) return refuse(ex, 403, -32600, 'Forbidden: Host or Origin not allowed');
    // The metadata is public and read from any origin (its own CORS answer), so it comes before the Origin check.
    const auth = settings.auth;
    if (auth !== undefined && isMetadataRequest(auth, exchange)) return serveMetadata(auth, exchange);
    // So is the server card (SEP-2127): for anyone, token or not, with its own CORS answer.
    const discovery = settings.card?.kindOf(pathOf(exchange.target()));
    if (discovery !== undefined) return serveDiscovery(settings.card!, discovery, exchange);
    if (hosts && !(originAllowed(hosts, ex.get('origin')) || corsAllows(cors, ex.get('origin')))) {
      return refuse(ex, 403, -32600, 'Forbidden: Host or Origin not allowed');
    }
    if (cors && ex.method === 'OPTIONS') return answerPreflight(cors, ex);
    if (ex.method !== 'POST') {
      if (ex.method === 'GET' && settings.streamable && (ex.get('last-event-id') !== undefined || ex.get('mcp-session-id') !== undefined)) {
        return void serveGet(mcp, settings, ex).catch((error: unknown) => post.fail(error));
      }
      return refuse(ex, 405, -32600, 'Method Not Allowed: this MCP endpoint only accepts POST', { allow: 'POST' });
    }
    if (!isJsonContentType(ex.get('content-type'))) {
      return refuse(ex, 415, -32600, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const accepts = acceptedTypes(ex.get('accept'));
    if (!(accepts & ACCEPTS_JSON)) return refuse(ex, 406, -32600, 'Not Acceptable: Accept must allow application/json');
    post.accepts = accepts;
    post.admit();
  } catch (error) {
    post.fail(error);
  }
}

/**
 * A POST from its scope to its answer; each step is a method, so no closure is built per request.
 * It is the request's outcome sink too.
 */
class PostExchange<Scope> implements BodySink, OutcomeSink {
  accepts = 0;
  #scope: Scope | undefined;
  /** The verified token (the `auth` option), and who the request is from. */
  #auth: AuthInfo | undefined;
  #principal = '';
  /** The body limit of this request (`maxBodyBytes`, or less for a method with a smaller bound). */
  #bodyLimit = 0;
  /** The request's id, for the 500 answer if something breaks. */
  #id: RequestId | null = null;
  #stream: PostStream | undefined;
  /** A JSON answer has gone out. */
  #answered = false;

  constructor(
    private readonly mcp: MiniMCP<Scope>,
    private readonly settings: Settings,
    private readonly ex: Exchange<Scope>,
  ) {}

  /** The token first (with the `auth` option; synchronous when it was seen before), then the scope factory. */
  admit(): void {
    const auth = this.settings.auth;
    if (auth === undefined) return this.authenticated(undefined);
    let info: AuthInfo | Promise<AuthInfo>;
    try {
      info = auth.authenticate(this.ex, this.mcp.state);
    } catch (error) {
      return this.scopeFailed(error);
    }
    if (info instanceof Promise) info.then((value) => this.authenticated(value), (error: unknown) => this.scopeFailed(error));
    else this.authenticated(info);
  }

  authenticated(auth: AuthInfo | undefined): void {
    this.#auth = auth;
    let scope: Scope | Promise<Scope> | undefined;
    try {
      scope = this.ex.scope(auth);
    } catch (error) {
      return this.scopeFailed(error);
    }
    if (scope instanceof Promise) scope.then((value) => this.read(value), (error: unknown) => this.scopeFailed(error));
    else this.read(scope);
  }

  read(scope: Scope | undefined): void {
    this.#scope = scope;
    try {
      const principal = principalFor(this.mcp, scope, this.#auth, this.ex);
      if (typeof principal === 'string') return this.readBody(principal);
      principal.then((value) => this.readBody(value), (error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  }

  /** The principal's rate budget before a byte of the body is read: a refused request costs almost nothing. */
  readBody(principal: string): void {
    this.#principal = principal;
    try {
      const rates = this.mcp.rates;
      const declared = Number(this.ex.get('content-length'));
      const checked = rates?.check(rateKey(principal, this.#auth), declared > 0 ? declared : 0);
      if (checked instanceof Promise) return void checked.then((refusal) => this.rated(refusal), (error: unknown) => this.fail(error));
      this.rated(checked);
    } catch (error) {
      this.fail(error);
    }
  }

  rated(refusal: RateLimited | undefined): void {
    const { ex } = this;
    try {
      if (refusal !== undefined) return refuseRate(ex, refusal);
      ex.readBody((this.#bodyLimit = bodyLimitOf(ex, this.settings.maxBodyBytes)), this);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The scope factory refused (an McpError with httpStatus) or broke (handed to the framework, or a 500). */
  scopeFailed(error: unknown): void {
    try {
      if (!isHttpError(error) && this.ex.fail?.(error)) return;
      refuseScope(this.ex, this.settings, error);
    } catch (failure) {
      this.fail(failure);
    }
  }

  bodyRead(body: BodyRead): void {
    const { ex, settings } = this;
    try {
      // The client left (or broke the upload): nobody will read this, but every exchange gets an answer.
      if (body === undefined) return refuse(ex, 400, -32600, 'Bad Request: the body could not be read');
      if (body === 'too-large') {
        return refuse(ex, 413, -32600, `Payload Too Large: the body exceeds ${this.#bodyLimit} bytes`, { connection: 'close' });
      }
      if (body === 'over-budget') {
        return refuse(ex, 503, -32603, 'Service Unavailable: too many request bodies in flight, retry later', { connection: 'close', 'retry-after': settings.retryAfter });
      }
      if (body === 'too-slow') return refuse(ex, 408, -32600, 'Request Timeout: the body was not received in time', { connection: 'close' });
      if (body instanceof Uint8Array && !(Number(ex.get('content-length')) > 0)) this.mcp.rates?.charge(rateKey(this.#principal, this.#auth), body.byteLength);
      let value: unknown;
      if (body instanceof Uint8Array) {
        try {
          value = JSON.parse(utf8.decode(body));
        } catch {
          return refuse(ex, 400, -32700, 'Parse error: the body is not valid UTF-8 JSON');
        }
      } else {
        value = body.parsed;
      }

      const id = (this.#id = idOf(value));
      const isRequest = id !== null && methodOf(value) !== undefined;
      const session = ex.get('mcp-session-id');

      // Only requests can be cancelled: notifications and client responses skip the signal's cost.
      let signal: CancelSignal | undefined = isRequest ? ex.signal : undefined;
      let send: Send | undefined;
      let closeStream: (() => void) | undefined;
      // The era is decided once, here; the core and the SSE stream reuse it.
      const era: Era | undefined = isRequest ? decideEra(paramsOf(value), ex) : undefined;
      if (isRequest && settings.streamable && this.accepts & ACCEPTS_SSE) {
        const sse = (this.#stream = new PostStream(ex, settings, revisionOf(era!).resumableStreams, session, this));
        send = (message) => sse.send(message);
        closeStream = () => sse.close();
        signal = sse.signal;
      }

      const facts = { send, closeStream, waitUntil: ex.waitUntil, scope: this.#scope, auth: this.#auth, principal: this.#principal, signal, headers: ex, era, session, sessions: true, rateChecked: true };
      const outcome = this.mcp.route(value, facts, this);
      if (outcome !== undefined) this.deliver(outcome);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Whose a kept stream is (principal and session); read only when a stream is kept for resumption. */
  get streamOwner(): string {
    return streamOwner(this.streamPrincipal, this.ex.get('mcp-session-id'));
  }

  /** The principal a kept stream counts against (resumable streams per principal). */
  get streamPrincipal(): string {
    return this.#principal;
  }

  /** The request's outcome, at once or later: JSON, the end of the SSE stream, or 202. */
  deliver(outcome: Outcome): void {
    const { ex } = this;
    try {
      const reply = outcome.reply;
      if (this.#stream?.finish(reply)) return; // the reply went out on the stream (or into the store)
      this.#answered = true;
      if (reply === undefined) return ex.respond(202, undefined, undefined);
      let headers = JSON_HEADERS;
      if (outcome.status === 503) headers = { ...JSON_HEADERS, 'retry-after': this.settings.retryAfter };
      else if (outcome.scopes !== undefined && this.settings.auth !== undefined) {
        headers = { ...JSON_HEADERS, ...this.settings.auth.insufficientScope(outcome.scopes, this.#auth) };
      }
      else if (outcome.session !== undefined) headers = { ...JSON_HEADERS, 'mcp-session-id': outcome.session };
      ex.respond(outcome.status, headers, serializeMessage(reply));
    } catch (error) {
      this.fail(error);
    }
  }

  /** Something broke in the transport itself: tell the framework or the log, and still answer. */
  fail(error: unknown): void {
    const { ex } = this;
    try {
      const stream = this.#stream;
      const streamed = stream?.opened === true;
      stream?.finish(undefined);
      if (!this.#answered && !streamed && ex.fail?.(error)) return;
      this.settings.onError(error);
      if (this.#answered || streamed) ex.end();
      else ex.respond(500, JSON_HEADERS, errorBody(this.#id, -32603, 'Internal error'));
    } catch {
      // The log or the socket failed too; nothing is left to tell anyone.
    }
  }
}

