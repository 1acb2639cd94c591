/** What the gateway tells an upstream about itself, and the upstream's answer it keeps. */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';

/** The 2025 revision the gateway speaks to handshake upstreams. */
export const UPSTREAM_HANDSHAKE_VERSION = '2025-11-25';
export const UPSTREAM_STATELESS_VERSION = '2026-07-28';

/**
 * Every client capability the gateway can bridge: an upstream question is passed to the caller,
 * whose own declaration decides (a caller that lacks it gets the upstream's call failing, 2026: -32021).
 */
export const BRIDGED_CAPABILITIES: JsonObject = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

export const GATEWAY_INFO = { name: 'minimcp-gateway', version: '1' };

export function initializeParams(): JsonObject {
  return { protocolVersion: UPSTREAM_HANDSHAKE_VERSION, capabilities: BRIDGED_CAPABILITIES, clientInfo: GATEWAY_INFO };
}

/** The capabilities from an `initialize` or `server/discover` result. */
export function capabilitiesOf(result: JsonObject): JsonObject {
  return isObject(result.capabilities) ? result.capabilities : {};
}
