/**
 * Protocol revisions and eras. A 2025 ("legacy") request follows an `initialize` handshake; a
 * 2026-07-28 ("modern") request carries its own `_meta` envelope. One endpoint serves both, and the
 * era is decided per request by the protocol version, never by the mere presence of `_meta`.
 */

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

export const isLegacyVersion = (v: string): boolean => (LEGACY_VERSIONS as readonly string[]).includes(v);
export const isModernVersion = (v: string): boolean => (MODERN_VERSIONS as readonly string[]).includes(v);

/** Echo a supported 2025 version, otherwise answer with our latest 2025 version (never a 2026 one). */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}
