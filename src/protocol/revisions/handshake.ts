/**
 * The handshake family: 2025-11-25, 2025-06-18 and older. A client runs `initialize`, then every
 * request belongs to its connection or (HTTP) its signed session. Results and errors go out as the
 * handlers made them; -32601 is answered in-band (2025 clients discard non-2xx bodies); tasks nest
 * under `task` with `ttl`/`pollInterval`; SSE responses are resumable and GET serves a session.
 */
import { ErrorCode, McpError, invalidParams, methodNotFoundError } from '../errors.js';
import { HANDSHAKE_VERSIONS } from '../versions.js';
import { handshakeTask } from '../task-wire.js';
import type { Revision } from './revision.js';

/** What the spec says to assume when a 2025 HTTP request has no MCP-Protocol-Version header. */
const DEFAULT_HTTP_VERSION = '2025-03-26';

const isServed = (version: string): boolean => (HANDSHAKE_VERSIONS as readonly string[]).includes(version);

/** Over HTTP an unsupported MCP-Protocol-Version header is answered 400 before dispatch. */
function checkVersionHeader(header: string | undefined): McpError | undefined {
  if (header === undefined || isServed(header)) return undefined;
  const served = HANDSHAKE_VERSIONS.join(', ');
  return new McpError(ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version: ${header} (supported: ${served})`, undefined, 400);
}

export const handshake: Revision = {
  era: 'handshake',
  versions: HANDSHAKE_VERSIONS,
  admit(into, _method, _params, headers, sessionVersion) {
    into.revision = handshake;
    into.meta = undefined;
    const header = headers?.get('mcp-protocol-version') ?? undefined;
    const unsupported = headers && checkVersionHeader(header);
    if (unsupported) return unsupported;
    into.protocolVersion = sessionVersion ?? header ?? (headers ? DEFAULT_HTTP_VERSION : HANDSHAKE_VERSIONS[0]);
    return undefined;
  },
  sessions: true,
  caches: false,
  roundTrips: false,
  standardHeaders: false,
  methodNotFound: (method) => methodNotFoundError(method, undefined),
  wireError: (error) => error,
  shapeResult: (result) => result,
  task: handshakeTask,
  taskCancelled(record, alreadyTerminal) {
    if (alreadyTerminal) throw invalidParams(`Task '${record.taskId}' is already ${record.status}: it cannot be cancelled`);
    return handshakeTask(record);
  },
  taskCreated: (record) => ({ task: handshakeTask(record) }),
  declareTasks(capabilities) {
    capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  },
  tasksStartAtOnce: true,
  toolErrorFailsTask: true,
  relaysTaskMessages: true,
  resumableStreams: true,
  servesGet: true,
};

/** Echo a served 2025 version, otherwise answer with our latest (never a 2026 one). */
export function negotiateHandshakeVersion(requested: unknown): string {
  return typeof requested === 'string' && isServed(requested) ? requested : HANDSHAKE_VERSIONS[0];
}

/** Whether a version names a handshake revision we serve (a 2025 session id carries one). */
export const isHandshakeVersion = isServed;
