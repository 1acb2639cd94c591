/**
 * The stateless family: 2026-07-28. Each request carries `_meta` (version, client capabilities,
 * optionally client info and log level), checked by a ladder whose refusals are HTTP 400; results carry
 * `resultType` and cache hints; the retired codes -32002 and -32042 are never sent; -32601 is a 404;
 * tasks are flat (`ttlMs`/`pollIntervalMs`) under the tasks extension; the endpoint only POSTs.
 */
import { levelRank } from '../mcp-types.js';
import { ErrorCode, McpError, internalError, invalidParams, methodNotFoundError } from '../errors.js';
import type { JsonObject } from '../jsonrpc.js';
import { checkStandardHeaders } from '../standard-headers.js';
import { META, STATELESS_VERSIONS } from '../versions.js';
import { TASKS_EXTENSION, createTaskResult, detailedTask } from '../task-wire.js';
import type { HeaderLookup } from '../standard-headers.js';
import type { AdmittedFacts, RequestMeta, Revision } from './revision.js';

const mismatch = (message: string) => new McpError(ErrorCode.HeaderMismatch, message, undefined, 400);

/**
 * Steps 2-4 of the ladder: required `_meta` fields (-32602), header agreement (-32020), supported
 * version (-32022). Every failure is an HTTP 400.
 */
function readMeta(params: JsonObject | undefined, header: string | undefined): RequestMeta | McpError {
  const meta = params?._meta as JsonObject | undefined;
  const version = meta?.[META.protocolVersion];
  const caps = meta?.[META.clientCapabilities];
  if (typeof meta !== 'object' || meta === null || typeof version !== 'string') {
    return invalidParams(`Missing _meta["${META.protocolVersion}"]`, undefined, 400);
  }
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
    return invalidParams(`Missing _meta["${META.clientCapabilities}"]`, undefined, 400);
  }
  if (header !== undefined && header !== version) {
    return mismatch(`MCP-Protocol-Version header (${header}) does not match _meta protocolVersion (${version})`);
  }
  if (!(STATELESS_VERSIONS as readonly string[]).includes(version)) {
    const data = { supported: [...STATELESS_VERSIONS], requested: version };
    return new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${version}`, data, 400);
  }
  const info = meta[META.clientInfo];
  const level = meta[META.logLevel];
  return {
    protocolVersion: version,
    clientCapabilities: caps as JsonObject,
    clientInfo: typeof info === 'object' && info !== null ? (info as JsonObject) : undefined,
    logLevel: typeof level === 'string' ? level : undefined,
  };
}

/** The whole ladder: `_meta`, header = meta, version, SEP-2243 headers, log level. */
function admit(into: AdmittedFacts, method: string, params: JsonObject | undefined, headers: HeaderLookup | undefined): McpError | undefined {
  into.revision = stateless;
  const header = headers?.get('mcp-protocol-version') ?? undefined;
  const meta = readMeta(params, header);
  if (meta instanceof McpError) return meta;
  // SEP-2243: over HTTP the version header is required on every 2026 request, like Mcp-Method.
  if (headers && header === undefined) return mismatch('Missing MCP-Protocol-Version header');
  const disagreement = headers && checkStandardHeaders(method, params, headers);
  if (disagreement) return disagreement;
  if (meta.logLevel !== undefined && levelRank(meta.logLevel) < 0) return invalidParams(`Invalid log level: ${meta.logLevel}`, undefined, 400);
  into.meta = meta;
  into.protocolVersion = meta.protocolVersion;
  return undefined;
}

export const stateless: Revision = {
  era: 'stateless',
  versions: STATELESS_VERSIONS,
  admit,
  sessions: false,
  caches: true,
  roundTrips: true,
  standardHeaders: true,
  methodNotFound: (method) => methodNotFoundError(method, 404),
  // 2026 clients never see the retired codes: -32002 becomes -32602 (same data), -32042 becomes -32603.
  wireError(error) {
    if (error.code === ErrorCode.ResourceNotFoundRetired) return new McpError(ErrorCode.InvalidParams, error.message, error.data);
    if (error.code === ErrorCode.UrlElicitationRequired) return internalError(error.message);
    return error;
  },
  shapeResult: (result, hint) => (hint ? { ...hint, ...result, resultType: 'complete' } : { ...result, resultType: 'complete' }),
  task: detailedTask,
  taskCancelled: () => ({}),
  taskCreated: createTaskResult,
  declareTasks(capabilities) {
    capabilities.extensions = { ...(capabilities.extensions as JsonObject | undefined), [TASKS_EXTENSION]: {} };
  },
  tasksStartAtOnce: false,
  toolErrorFailsTask: false,
  relaysTaskMessages: false,
  resumableStreams: false,
  servesGet: false,
};
