/**
 * The contract between a transport and the core, in one place: `mcp.route(message, facts, sink)`
 * takes a message and what the transport knows about it (MessageFacts), and gives back an Outcome,
 * at once or later through the sink. Every built-in transport (stdio, HTTP) and examples/queue/ use
 * only this. See docs/architecture.md, "The entry for transports".
 */
import type { AuthInfo } from './protocol/auth-info.js';
import type { JsonRpcResponse } from './protocol/jsonrpc.js';
import type { Era } from './protocol/revisions/revision.js';
import type { HeaderLookup } from './protocol/standard-headers.js';
import type { CancelSignal } from './platform/cancellation.js';
import type { Connection } from './signing/session-ids.js';
import type { Send } from './protocol/mcp-types.js';

export type { Send } from './protocol/mcp-types.js';
export type { Connection } from './signing/session-ids.js';

/**
 * What a transport knows about one message beyond its bytes. Every field is optional: `handle()`
 * with none of them serves a message in code, as a test or an in-process client would.
 */
export interface MessageFacts<Scope = unknown> {
  /** The channel back to the client for notifications and requests tied to this message. */
  send?: Send;
  /** What the host attached to the caller (a verified token, a tenant): `ctx.scope` in handlers. */
  scope?: Scope;
  /**
   * Who is asking, when the transport itself knows (an authenticated peer). Otherwise the server's
   * `principal(scope)` option decides, or the scope's own `principal` string; '' is anonymous. Cancellation, 2025 server requests, sessions, MRTR state and
   * the concurrency share are bound to it.
   */
  principal?: string;
  /**
   * The caller's verified access token (the HTTP transport's `auth` option): `ctx.auth`. Its
   * principal is the request's principal unless `principal` says otherwise, and operations with
   * `scopes` check the token's scopes.
   */
  auth?: AuthInfo;
  /** Aborting it cancels the handler (a closed connection). Only these members are used, so a transport may pass a lighter object. */
  signal?: CancelSignal;
  /**
   * The request's headers, when the transport has them (HTTP): the protocol version, SEP-2243
   * `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*` and the session id are read from them, in protocol/ only.
   */
  headers?: HeaderLookup;
  /** The era, if the transport already decided it with `decideEra()` (HTTP does at its gate); decided here otherwise. */
  era?: Era;
  /** 2025 era: the transport's per-connection state (stdio keeps one per stream). */
  connection?: Connection;
  /**
   * 2025 era, for transports without a connection object (HTTP): the session id the client
   * presented (`Mcp-Session-Id`). The core checks it (signed, bound to the principal) and serves the
   * request on the session it names; one that names none is answered 404.
   */
  session?: string;
  /** The transport can hand a session id to the client (HTTP): a successful 2025 `initialize` then gets one in `Outcome.session`. */
  sessions?: boolean;
  /** 2025 HTTP SSE only (SEP-1699): ends the response stream early; the rest is delivered on a resuming GET. */
  closeStream?: () => void;
  /** A stream transport (stdio): a 2025 request before `initialize` is refused (see request/call.ts). */
  requireInitialize?: boolean;
  /**
   * The transport already took this message from its principal's rate budget (HTTP does, before it
   * reads the body) or exempts it (stdio: its one client owns the process), so `route()` does not
   * take it again. Otherwise `route()` takes it after parsing and answers -32603 past the limit.
   */
  rateChecked?: boolean;
  /** Keeps the runtime working on a promise after the response (Workers' `ctx.waitUntil`); undefined where the process lives on anyway. */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * Receives an outcome that was not ready when `route()` returned: exactly once, later. An object
 * with a method rather than a bare function, so a transport's per-request object can be its own sink.
 */
export interface OutcomeSink {
  deliver(outcome: Outcome): void;
}

/** What one message produced: the reply (none for notifications) and its HTTP status. */
export interface Outcome {
  /** The JSON-RPC response to send; undefined for a notification, a client response or a cancelled request. */
  reply: JsonRpcResponse | undefined;
  status: number;
  /** A new 2025 session id for the client (only when the facts said `sessions: true`): HTTP sends it as `Mcp-Session-Id`. */
  session?: string;
  /** A 403 for a token without the scopes the operation needs: these scopes (HTTP names them in its challenge). */
  scopes?: readonly string[];
}
