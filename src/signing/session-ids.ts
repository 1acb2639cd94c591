/**
 * 2025 sessions without server state, signed and bound to the principal. The id minted on
 * `initialize` carries what the handshake established (version, client capabilities, client name and
 * version), so any instance with the same secret rebuilds the Connection from the id alone:
 * `<random>.<base64url(json)>.<mac>`. The MAC (HMAC-SHA256 with the requestState secret) also covers
 * the principal, so an id that was altered, minted with another secret, or presented by another
 * principal names no session. What the id carries is checked again when it is read: known protocol
 * versions only, client name and version as short strings.
 */
import { isObject } from '../protocol/jsonrpc.js';
import { isHandshakeVersion } from '../protocol/revisions/handshake.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/mcp-types.js';
import type { Signer } from './request-state.js';
import { textFromBase64url, toBase64url } from '../platform/base64url.js';

const encoder = new TextEncoder();

/**
 * Per-connection state of the 2025 era, owned by the transport: stdio keeps one for its stream, HTTP
 * rebuilds it from the session id on every request. The core reads it and `initialize` fills it.
 */
export interface Connection {
  id?: string;
  protocolVersion?: string;
  clientCapabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  initialized?: boolean;
  subscriptions?: Set<string>;
}

const MAX_LENGTH = 1024;
/** A MAC in base64url, and its dot. */
const MAC_LENGTH = 44;
const MAX_NAME = 256;

interface Payload {
  v: string;
  c: ClientCapabilities;
  i?: [string, string];
}

/** Capabilities cut to `depth` levels ({ elicitation: { url: {} } }): enough for every capability check. */
function shallow(caps: ClientCapabilities, depth: number): ClientCapabilities {
  const out: ClientCapabilities = {};
  for (const [key, value] of Object.entries(caps)) {
    if (isObject(value)) out[key] = depth > 1 ? shallow(value as ClientCapabilities, depth - 1) : {};
    else if (typeof value === 'boolean') out[key] = value; // listChanged: true; long strings are what we cut
  }
  return out;
}

/** A client's name and version as a session may carry them: two short strings, or nothing. */
export function clientInfoOf(info: unknown): Implementation | undefined {
  if (!isObject(info)) return undefined;
  const { name, version } = info;
  if (typeof name !== 'string' || typeof version !== 'string' || name.length > MAX_NAME || version.length > MAX_NAME) return undefined;
  return { name, version };
}

const signedPart = (principal: string, unsigned: string): string => `session\u0000${principal.length}:${principal}\u0000${unsigned}`;

export class SessionCodec {
  // A client repeats its id on every request: each distinct (principal, id) is checked once.
  readonly #cache = new Map<string, Connection | null>();

  constructor(private readonly signer: Signer) {}

  /** A new session id for a connection `initialize` just filled in; visible ASCII, at most 1 KB. Needs the hashing loaded (loadCrypto). */
  mint(connection: Connection, principal: string): string {
    const random = toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(16)));
    const caps = connection.clientCapabilities ?? {};
    const info = connection.clientInfo;
    const full: Payload = { v: connection.protocolVersion!, c: caps };
    if (info !== undefined) full.i = [info.name, info.version];
    // Ever smaller payloads until one fits: huge `experimental` blocks or client names must not break the header.
    const attempts: Payload[] = [full, { ...full, c: shallow(caps, 2) }, { v: full.v, c: shallow(caps, 2) }, { v: full.v, c: shallow(caps, 1) }, { v: full.v, c: {} }];
    let unsigned = '';
    for (const payload of attempts) {
      unsigned = `${random}.${toBase64url(encoder.encode(JSON.stringify(payload)))}`;
      if (unsigned.length + MAC_LENGTH <= MAX_LENGTH) break;
    }
    return `${unsigned}.${toBase64url(this.signer.mac(signedPart(principal, unsigned)))}`;
  }

  /** The session an id names for this principal, as a fresh Connection (the core writes to it); undefined when it names none. */
  open(id: string, principal: string): Connection | undefined {
    const key = signedPart(principal, id);
    let facts = this.#cache.get(key);
    if (facts === undefined) {
      facts = this.#decode(id, principal) ?? null;
      if (this.#cache.size >= 1000) this.#cache.clear();
      this.#cache.set(key, facts);
    }
    return facts === null ? undefined : { ...facts };
  }

  #decode(id: string, principal: string): Connection | undefined {
    if (id.length > MAX_LENGTH) return undefined;
    const lastDot = id.lastIndexOf('.');
    const firstDot = id.indexOf('.');
    if (firstDot < 1 || lastDot === firstDot) return undefined;
    const unsigned = id.slice(0, lastDot);
    if (!this.signer.verify(signedPart(principal, unsigned), id.slice(lastDot + 1))) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(textFromBase64url(unsigned.slice(firstDot + 1)));
    } catch {
      return undefined;
    }
    if (!isObject(payload) || typeof payload.v !== 'string' || !isHandshakeVersion(payload.v) || !isObject(payload.c)) return undefined;
    const connection: Connection = { id: id.slice(0, firstDot), initialized: true, protocolVersion: payload.v, clientCapabilities: payload.c };
    const info = Array.isArray(payload.i) ? clientInfoOf({ name: payload.i[0], version: payload.i[1] }) : undefined;
    if (info !== undefined) connection.clientInfo = info;
    return connection;
  }
}
