/**
 * Protocol revisions and eras. A 2025 ("legacy") request follows an `initialize` handshake; a
 * 2026-07-28 ("modern") request carries its own `_meta` envelope. One endpoint serves both, and the
 * era is decided per request by the protocol version, never by the mere presence of `_meta`.
 */
import { ErrorCode, McpError, invalidParams } from './errors.js';
import type { JsonObject } from './jsonrpc.js';

/** 2025-era revisions, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** Stateless revisions served through the per-request `_meta` envelope. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export const LATEST_LEGACY_VERSION = LEGACY_VERSIONS[0];
/** What the spec says to assume when a 2025 HTTP request has no MCP-Protocol-Version header. */
export const DEFAULT_HTTP_LEGACY_VERSION = '2025-03-26';

export type Era = 'legacy' | 'modern';

/** The reserved `_meta` keys of 2026-07-28. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

const MODERN_PREFIX = 'io.modelcontextprotocol/';
const isLegacyVersion = (v: string): boolean => (LEGACY_VERSIONS as readonly string[]).includes(v);
export const isModernVersion = (v: string): boolean => (MODERN_VERSIONS as readonly string[]).includes(v);

/** Echo a supported 2025 version, otherwise answer with our latest 2025 version (never a 2026 one). */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** What the transport knows about a request beyond its body (HTTP headers; nothing on stdio). */
export interface EraHints {
  protocolVersionHeader?: string | undefined;
  sessionId?: string | undefined;
}

function hasModernMeta(meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null) return false;
  for (const key in meta) if (key.startsWith(MODERN_PREFIX)) return true;
  return false;
}

/** A dated version before 2026 names the 2025 era even when we do not serve it (it then gets a 2025 error). */
const looksLegacy = (v: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(v) && v < '2026';

/**
 * Decides the era of one request: modern when `_meta` carries `io.modelcontextprotocol/*` keys or the
 * HTTP header names a non-2025 version; legacy for a 2025 session, a 2025 header, or no signal at all.
 */
export function detectEra(params: JsonObject | undefined, hints: EraHints | undefined): Era {
  if (hasModernMeta(params?._meta)) return 'modern';
  const header = hints?.protocolVersionHeader;
  if (hints?.sessionId !== undefined || header === undefined) return 'legacy';
  return looksLegacy(header) ? 'legacy' : 'modern';
}

/** 2025 HTTP: an unsupported MCP-Protocol-Version header is answered 400 before dispatch. */
export function checkLegacyHeader(header: string | undefined): McpError | undefined {
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
export function readModernMeta(params: JsonObject | undefined, header: string | undefined): ModernMeta | McpError {
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
