/**
 * What one request is, once admitted: its id, method and params, the facts its transport gave, and
 * what admission established (revision, principal, session, method). The record admission.ts fills
 * in place, and the facts a Context reads; `Call` (call.ts) runs the request on top of it.
 */
import type { AuthInfo } from '../protocol/auth-info.js';
import type { ClientFacts } from '../context/context.js';
import type { Core, MethodSpec, RequestInfo } from './core.js';
import { handshake } from '../protocol/revisions/handshake.js';
import type { Era, RequestMeta, Revision } from '../protocol/revisions/revision.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { patchConnection, type SessionPatch } from '../state/sessions.js';
import { DEFAULT_SESSION_LIMITS } from '../state/session-limits.js';
import type { Connection, MessageFacts } from '../transport.js';
import { levelRank, type ClientCapabilities, type Implementation, type MaybePromise } from '../protocol/mcp-types.js';
import type { Admission } from './admission.js';
import { Execution } from './execution.js';

export abstract class AdmittedRequest<Scope> extends Execution implements Admission {
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
