/**
 * The era of one request and the 2026 validation ladder, decided once, here. A 2025 ("legacy")
 * request follows an `initialize` handshake; a 2026-07-28 ("modern") one carries its own `_meta`
 * envelope. The era comes from the protocol version, never from the mere presence of `_meta`.
 * Transports that see headers (HTTP) may decide it at their gate with `decideEra` and pass it on;
 * the request core reuses that decision and climbs the ladder with `admitEra`.
 */
import { levelRank } from '../types.js';
import { ErrorCode, McpError, invalidParams } from './errors.js';
import type { JsonObject } from './jsonrpc.js';
import { checkStandardHeaders, type HeaderLookup } from './standard-headers.js';
import {
  DEFAULT_HTTP_LEGACY_VERSION, LATEST_LEGACY_VERSION, LEGACY_VERSIONS, META, MODERN_VERSIONS, isLegacyVersion, isModernVersion, type Era,
} from './versions.js';

const MODERN_PREFIX = 'io.modelcontextprotocol/';

function hasModernMeta(meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null) return false;
  for (const key in meta) if (key.startsWith(MODERN_PREFIX)) return true;
  return false;
}

/** A dated version before 2026 names the 2025 era even when we do not serve it (it then gets a 2025 error). */
const looksLegacy = (v: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(v) && v < '2026';

/**
 * The era of one request: modern when `_meta` carries `io.modelcontextprotocol/*` keys or the
 * `MCP-Protocol-Version` header names a non-2025 version; legacy for a 2025 session, a 2025 header,
 * or no signal at all. `headers` is what the transport saw (HTTP); none on stdio.
 */
export function decideEra(params: JsonObject | undefined, headers: HeaderLookup | undefined): Era {
  if (hasModernMeta(params?._meta)) return 'modern';
  const header = headers?.get('mcp-protocol-version') ?? undefined;
  if (header === undefined || (headers!.get('mcp-session-id') ?? undefined) !== undefined) return 'legacy';
  return looksLegacy(header) ? 'legacy' : 'modern';
}

/** What the ladder establishes about a request it admits; the request object itself holds it. */
export interface EraFacts {
  era: Era;
  modern: ModernMeta | undefined;
  protocolVersion: string;
}

/**
 * The ladder for one request of a known era, writing what it established on `into` (no object per
 * request). 2026: `_meta` (-32602), header = meta (-32020), version (-32022), SEP-2243 headers
 * (-32020), log level (-32602), all HTTP 400. 2025 over HTTP: a supported version header.
 * Returns the refusal, or undefined when the request may go on.
 */
export function admitEra(
  into: EraFacts, era: Era, method: string, params: JsonObject | undefined, headers: HeaderLookup | undefined, sessionVersion: string | undefined,
): McpError | undefined {
  into.era = era;
  const versionHeader = headers?.get('mcp-protocol-version') ?? undefined;
  if (era === 'legacy') {
    const unsupported = headers && checkLegacyHeader(versionHeader);
    if (unsupported) return unsupported;
    into.protocolVersion = sessionVersion ?? versionHeader ?? (headers ? DEFAULT_HTTP_LEGACY_VERSION : LATEST_LEGACY_VERSION);
    return undefined;
  }
  const meta = readModernMeta(params, versionHeader);
  if (meta instanceof McpError) return meta;
  // SEP-2243: over HTTP the version header is required on every 2026 request, like Mcp-Method.
  if (headers && versionHeader === undefined) {
    return new McpError(ErrorCode.HeaderMismatch, 'Missing MCP-Protocol-Version header', undefined, 400);
  }
  const mismatch = headers && checkStandardHeaders(method, params, headers);
  if (mismatch) return mismatch;
  if (meta.logLevel !== undefined && levelRank(meta.logLevel) < 0) return invalidParams(`Invalid log level: ${meta.logLevel}`, undefined, 400);
  into.modern = meta;
  into.protocolVersion = meta.protocolVersion;
  return undefined;
}

/** 2025 HTTP: an unsupported MCP-Protocol-Version header is answered 400 before dispatch. */
function checkLegacyHeader(header: string | undefined): McpError | undefined {
  if (header === undefined || isLegacyVersion(header)) return undefined;
  return new McpError(
    ErrorCode.InvalidRequest,
    `Unsupported MCP-Protocol-Version: ${header} (supported: ${LEGACY_VERSIONS.join(', ')})`,
    undefined,
    400,
  );
}

/** The validated 2026 envelope of one request. */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: JsonObject;
  clientInfo: JsonObject | undefined;
  logLevel: string | undefined;
}

/**
 * Steps 2-4 of the 2026 validation ladder: required `_meta` fields (-32602), header agreement
 * (-32020), supported version (-32022). Every failure is an HTTP 400.
 */
function readModernMeta(params: JsonObject | undefined, header: string | undefined): ModernMeta | McpError {
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
    return new McpError(
      ErrorCode.HeaderMismatch,
      `MCP-Protocol-Version header (${header}) does not match _meta protocolVersion (${version})`,
      undefined,
      400,
    );
  }
  if (!isModernVersion(version)) {
    return new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${version}`,
      { supported: [...MODERN_VERSIONS], requested: version },
      400,
    );
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

/** Methods a 2025 stream may send before `initialize`: the handshake itself and `ping`. */
export const opensStream = (method: string): boolean => method === 'initialize' || method === 'ping';

/**
 * A 2025 request on a stream that never saw `initialize` (stdio asks for this check with
 * `requireInitialize`), and without the 2026 `_meta` that would make it stand alone: neither way in
 * was taken, so it is refused rather than served with guessed capabilities. HTTP without a session
 * is stateless 2025 by design and is not checked.
 */
export const notInitialized = (): McpError =>
  invalidParams(
    'This connection is not initialized: send initialize first (2025-11-25), or give every request the ' +
      `2026-07-28 _meta ("${META.protocolVersion}" and "${META.clientCapabilities}")`,
  );
