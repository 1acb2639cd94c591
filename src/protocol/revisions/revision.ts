/**
 * What differs on the wire between protocol revisions, as data. Each family of revisions is one
 * object: handshake.ts (2025-06-18 / 2025-11-25 and older: `initialize`, sessions) and stateless.ts
 * (2026-07-28: every request carries its own `_meta`). A request picks its Revision once, when it is
 * admitted, and the core asks it; no code outside this folder branches on the family. Adding a
 * revision is adding a module here (and its tests) and naming it in index.ts.
 */
import type { JsonObject } from '../jsonrpc.js';
import type { McpError } from '../errors.js';
import type { HeaderLookup } from '../standard-headers.js';
import type { TaskView } from '../task-wire.js';
import type { CacheHint } from '../mcp-types.js';

/**
 * The protocol family of a request: 'handshake' (an `initialize` handshake, then a session or a
 * connection) or 'stateless' (each request stands alone). Named for what they are, so a later
 * revision of either family keeps its name.
 */
export type Era = 'handshake' | 'stateless';

/** Where a method is served: one family, or both. */
export type Eras = Era | 'both';

/** The validated 2026 `_meta` envelope of one request. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo: JsonObject | undefined;
  logLevel: string | undefined;
}

/** What admission establishes about a request; the request object itself holds it (no object per request). */
export interface AdmittedFacts {
  revision: Revision;
  protocolVersion: string;
  /** The request's own `_meta` envelope (stateless family only). */
  meta: RequestMeta | undefined;
}

export interface Revision {
  readonly era: Era;
  /** The protocol versions this family serves, newest first. */
  readonly versions: readonly string[];
  /**
   * The family's admission ladder: what it establishes goes on `into`; a refusal is returned.
   * `headers`: HTTP only; `sessionVersion`: what a 2025 session or connection negotiated.
   */
  admit(into: AdmittedFacts, method: string, params: JsonObject | undefined, headers: HeaderLookup | undefined, sessionVersion: string | undefined): McpError | undefined;
  /** -32601 as this family answers it (its HTTP status differs). */
  methodNotFound(method: string): McpError;
  /** An error as this family's clients may see it (codes a revision retired are mapped). */
  wireError(error: McpError): McpError;
  /**
   * Requests belong to a connection or a signed session that `initialize` opened (2025): the client's
   * capabilities, info and log level are the session's. Otherwise (2026) each request carries its own in `_meta`.
   */
  readonly sessions: boolean;
  /**
   * A handler's input (elicitation, sampling, roots) is asked by an `input_required` result that the
   * client answers in a new round of the same request (MRTR, 2026); otherwise by requests on the stream.
   */
  readonly roundTrips: boolean;
  /** Over HTTP a request mirrors its method and chosen arguments in standard `Mcp-*` headers, checked against the body. */
  readonly standardHeaders: boolean;
  /** Results carry cache hints (`ttlMs`, `cacheScope`): one only some callers may see is marked private. */
  readonly caches: boolean;
  /** A result as sent: the stateless family adds `resultType` and the method's cache hint. */
  shapeResult(result: JsonObject, hint: CacheHint | undefined): JsonObject;
  /** A task as `tasks/get` answers it (2026 inlines what it waits on or ended with). */
  task(record: TaskView): JsonObject;
  /** `tasks/cancel`'s answer (2026: an empty ack, also when already terminal; 2025: the task, or -32602 when terminal). */
  taskCancelled(record: TaskView, alreadyTerminal: boolean): JsonObject;
  /** The `tools/call` answer when the call became a task. */
  taskCreated(record: TaskView): JsonObject;
  /** Where the tasks capability is declared in the server's capabilities. */
  declareTasks(capabilities: JsonObject): void;
  /**
   * A task-augmented call becomes a task before its handler runs (2025: the client asked for one);
   * otherwise only once its handler waits (2026: the server decides).
   */
  readonly tasksStartAtOnce: boolean;
  /** A task whose tool answered `isError: true` ends 'failed' (2025), not 'completed' with that result (2026). */
  readonly toolErrorFailsTask: boolean;
  /** A task's progress and logs go to its `tasks/result` streams (2025); 2026 clients poll `tasks/get`. */
  readonly relaysTaskMessages: boolean;
  /** An SSE response can be resumed with Last-Event-ID (SEP-1699); and GET opens a session's stream. */
  readonly resumableStreams: boolean;
  /** The HTTP endpoint serves GET (a session's stream, a resumption); the stateless family only POSTs. */
  readonly servesGet: boolean;
}
