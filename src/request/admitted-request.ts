/**
 * What one request is, once admitted: its id, method and params, the facts its transport gave, what
 * admission established (revision, principal, session, method), and what it holds while it runs (a
 * slot of the gate, its cancel route, a listener on the transport's signal). The record admission.ts
 * fills in place, and the facts a Context reads; `Call` (call.ts) runs the request on top of it.
 */
import type { AuthInfo } from '../protocol/auth-info.js';
import type { ClientFacts } from '../context/context.js';
import type { Core, MethodSpec, RequestInfo } from './core.js';
import { handshake } from '../protocol/revisions/handshake.js';
import type { Era, RequestMeta, Revision } from '../protocol/revisions/revision.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { applySession, patchConnection, type SessionPatch } from '../state/sessions.js';
import { DEFAULT_SESSION_LIMITS } from '../state/session-limits.js';
import type { Connection, MessageFacts } from '../transport.js';
import { levelRank, type ClientCapabilities, type Implementation, type MaybePromise } from '../protocol/mcp-types.js';
import type { Waiter } from '../limits/concurrency.js';
import { cancelKey } from '../state/cancels.js';
import { Execution } from './execution.js';

export abstract class AdmittedRequest<Scope> extends Execution implements EventListenerObject {
  /** The request's protocol family, chosen once at admission: what differs on the wire is asked of it. */
  revision: Revision = handshake;
  /** The request's own `_meta` envelope (stateless family). */
  meta: RequestMeta | undefined = undefined;
  protocolVersion = '';
  // What admission established (admission.ts): this request is the record.
  spec!: MethodSpec;
  principal = '';
  connection: Connection | undefined;
  minting = false;
  readonly params: JsonObject;
  #clientFacts: ClientFacts | undefined;
  /** The named principal whose share of the gate this request counts against (undefined: anonymous). */
  #share: string | undefined;
  #holdsSlot = false;
  #cancelKey: string | undefined;
  #listening = false;

  constructor(
    protected readonly core: Core<Scope>,
    readonly id: RequestId,
    readonly method: string,
    params: JsonObject | undefined,
    protected readonly facts: MessageFacts<Scope>,
  ) {
    super();
    this.params = params ?? {};
  }

  get era(): Era {
    return this.revision.era;
  }
  get scope(): Scope {
    return this.facts.scope as Scope;
  }
  get auth(): AuthInfo | undefined {
    return this.facts.auth;
  }
  get headers(): MessageFacts['headers'] {
    return this.facts.headers;
  }
  /** Whether this server serves the method (telemetry names unknown ones `_OTHER`). */
  get known(): boolean {
    return this.core.methods.has(this.method);
  }

  /**
   * 2025 over HTTP: the session's log level and subscriptions come from the session store (memory by
   * default: a Map lookup, no promise). A shared store answers later (the promise); a broken one rejects.
   */
  enterSession(): Promise<void> | undefined {
    const connection = this.connection;
    if (this.facts.connection !== undefined || connection?.id === undefined) return undefined;
    const state = this.core.state.sessions.get(connection.id);
    if (!(state instanceof Promise)) {
      if (state !== undefined) applySession(connection, state);
      return undefined;
    }
    return state.then((loaded) => {
      if (loaded !== undefined) applySession(connection, loaded);
    });
  }

  /** Asks the gate for a slot: true (held), false (refused: the server is full), undefined (queued: `waiter.slot()` comes later). */
  protected takeSlot(waiter: Waiter): boolean | undefined {
    this.#share = this.principal === '' ? undefined : this.principal; // anonymous callers share only the global cap
    const admitted = this.core.gate.acquire(waiter, this.#share);
    this.#holdsSlot = admitted === true;
    return admitted;
  }

  /** The gate's later answer for a queued request. */
  protected slotGranted(granted: boolean): void {
    this.#holdsSlot = granted;
  }

  /**
   * A request not answered at once (waiting for a slot, or for its handler) becomes reachable by
   * `notifications/cancelled` where a cancel can name it: on a connection, or in code with no
   * transport (over HTTP without a session, ids are not unique across clients; those requests are
   * cancelled by closing the connection). And it listens to the transport's signal. One answered at
   * once needs neither: a cancel or a disconnect can only come in a later turn. Skipping them spares
   * a busy stdio stream two hash-table entries per request, whose rehashed tables the young
   * generation promoted until it grew to its maximum (docs/benchmarks.md, "Allocation per request").
   */
  protected becomeReachable(): void {
    const connection = this.connection;
    if (connection !== undefined || this.facts.headers === undefined) {
      this.#cancelKey = cancelKey(this.principal, connection?.id, this.id);
      this.core.state.cancels.add(this.#cancelKey, this);
    }
    const signal = this.facts.signal;
    if (signal !== undefined && !this.aborted) {
      signal.addEventListener('abort', this);
      this.#listening = true;
    }
  }

  /** The transport's signal fired: a closed connection or shutdown. */
  handleEvent(): void {
    this.abort(this.facts.signal?.reason ?? new Error('aborted'));
  }

  /** Gives back what the request holds: its slot, its cancel route and its signal listener. */
  protected release(): void {
    if (this.#holdsSlot) {
      this.#holdsSlot = false;
      this.core.gate.release(this.#share);
    }
    if (this.#cancelKey !== undefined) this.core.state.cancels.delete(this.#cancelKey, this);
    if (this.#listening) this.facts.signal!.removeEventListener('abort', this);
  }

  /** 2025: a change to the session (log level, subscriptions), on its connection and, over HTTP, in the session store. */
  remember(patch: SessionPatch): MaybePromise<void> {
    const connection = this.connection;
    if (connection === undefined) return;
    if (this.facts.connection !== undefined || connection.id === undefined) {
      return patchConnection(connection, patch, DEFAULT_SESSION_LIMITS); // a transport's own connection keeps it
    }
    patchConnection(connection, patch);
    return this.core.state.sessions.update(connection.id, patch, this.principal);
  }

  reportError(error: unknown): void {
    this.core.reportError(error, this.info());
  }

  /** What hooks and `onError` are told about a request. */
  protected info(): RequestInfo {
    return { id: this.id, method: this.method, params: this.params };
  }

  /** The request's own `_meta` where the revision has no sessions (2026); undefined where the session speaks for the client. */
  get #ownMeta(): RequestMeta | undefined {
    return this.revision.sessions ? undefined : this.meta;
  }

  get client(): ClientFacts {
    if (this.#clientFacts) return this.#clientFacts;
    const meta = this.#ownMeta;
    const connection = this.connection;
    return (this.#clientFacts = meta
      ? { capabilities: meta.clientCapabilities as ClientCapabilities, info: meta.clientInfo as Implementation | undefined }
      : { capabilities: connection?.clientCapabilities ?? {}, info: connection?.clientInfo });
  }

  /** 2026: logs only when `_meta` asks for a level. 2025: everything until `logging/setLevel` says otherwise. */
  get logThreshold(): number | undefined {
    if (!this.revision.sessions) {
      const level = this.meta?.logLevel;
      return level === undefined ? undefined : levelRank(level);
    }
    const level = this.connection?.logLevel;
    return level === undefined ? 0 : levelRank(level);
  }

  get waitUntil(): ((promise: Promise<unknown>) => void) | undefined {
    return this.facts.waitUntil;
  }
}
