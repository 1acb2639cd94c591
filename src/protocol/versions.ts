/**
 * The protocol versions served, by family, and the reserved `_meta` keys. What differs between the
 * families on the wire lives in revisions/ (one module per family).
 */

/** Revisions of the handshake family (`initialize`, then a session), newest first. */
export const HANDSHAKE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
/** Revisions of the stateless family (a per-request `_meta` envelope), newest first. */
export const STATELESS_VERSIONS = ['2026-07-28'] as const;

/** The reserved `_meta` keys of 2026-07-28. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
