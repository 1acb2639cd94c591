/**
 * The protocol family of one request, decided once, here: a handshake request follows `initialize`;
 * a stateless one (2026-07-28) carries its own `_meta` envelope. The family comes from the protocol
 * version, never from the mere presence of `_meta`. Transports that see headers (HTTP) may decide it
 * at their gate with `decideEra` and pass it on; the request core reuses that decision and runs the
 * family's admission ladder (revisions/).
 */
import { invalidParams, type McpError } from './errors.js';
import type { JsonObject } from './jsonrpc.js';
import type { HeaderLookup } from './standard-headers.js';
import type { Era } from './revisions/revision.js';
import { META } from './versions.js';

const META_PREFIX = 'io.modelcontextprotocol/';

function hasStatelessMeta(meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null) return false;
  for (const key in meta) if (key.startsWith(META_PREFIX)) return true;
  return false;
}

/** A dated version before 2026 names the handshake family even when we do not serve it (it then gets a 2025 error). */
const looksHandshake = (v: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(v) && v < '2026';

/**
 * The family of one request: stateless when `_meta` carries `io.modelcontextprotocol/*` keys or the
 * `MCP-Protocol-Version` header names a non-2025 version; handshake for a 2025 session, a 2025 header,
 * or no signal at all. `headers` is what the transport saw (HTTP); none on stdio.
 */
export function decideEra(params: JsonObject | undefined, headers: HeaderLookup | undefined): Era {
  if (hasStatelessMeta(params?._meta)) return 'stateless';
  const header = headers?.get('mcp-protocol-version') ?? undefined;
  if (header === undefined || (headers!.get('mcp-session-id') ?? undefined) !== undefined) return 'handshake';
  return looksHandshake(header) ? 'handshake' : 'stateless';
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
