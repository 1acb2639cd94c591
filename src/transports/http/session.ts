/**
 * 2025 sessions without server state. The `Mcp-Session-Id` minted on `initialize` carries what the
 * handshake established (version, client capabilities, client name/version), so any instance can
 * rebuild the Connection from the header alone: `<random>.<base64url(json)>`.
 * It is not signed on purpose: it only repeats what the client declared about itself, so forging it
 * gains nothing the client could not have declared in `initialize`.
 */
import type { Connection } from '../../core.js';
import type { ClientCapabilities, Implementation } from '../../types.js';
import { textFromBase64url, toBase64url as base64url } from '../../platform/base64url.js';

const MAX_LENGTH = 1024;
const encoder = new TextEncoder();

interface Payload {
  v?: string;
  c?: ClientCapabilities;
  i?: [string, string];
}

/** Capabilities cut to `depth` levels ({ elicitation: { url: {} } }): enough for every capability check. */
function shallow(caps: ClientCapabilities, depth: number): ClientCapabilities {
  const out: ClientCapabilities = {};
  for (const [key, value] of Object.entries(caps)) {
    if (typeof value === 'object' && value !== null) out[key] = depth > 1 ? shallow(value as ClientCapabilities, depth - 1) : {};
    else if (typeof value === 'boolean') out[key] = value; // listChanged: true; long strings are what we cut
  }
  return out;
}

/** A new session id for a connection `initialize` just filled in; always visible ASCII, under 1 KB. */
export function mintSessionId(connection: Connection): string {
  const random = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const caps = connection.clientCapabilities ?? {};
  const info = connection.clientInfo;
  const full: Payload = { v: connection.protocolVersion, c: caps };
  if (typeof info?.name === 'string' && typeof info.version === 'string') full.i = [info.name, info.version];
  // Ever smaller payloads until one fits: huge `experimental` blocks or client names must not break the header.
  const attempts: Payload[] = [full, { ...full, c: shallow(caps, 2) }, { v: full.v, c: shallow(caps, 2) }, { v: full.v, c: shallow(caps, 1) }];
  for (const payload of attempts) {
    const id = `${random}.${base64url(encoder.encode(JSON.stringify(payload)))}`;
    if (id.length <= MAX_LENGTH) return id;
  }
  return random; // parses back as "capabilities unknown"
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function decode(header: string): Connection {
  const dot = header.indexOf('.');
  const id = dot < 0 ? header : header.slice(0, dot);
  if (dot < 0 || header.length > MAX_LENGTH * 2) return { id };
  try {
    const payload: unknown = JSON.parse(textFromBase64url(header.slice(dot + 1)));
    if (!isObject(payload)) return { id };
    const connection: Connection = { id, initialized: true };
    if (typeof payload.v === 'string') connection.protocolVersion = payload.v;
    if (isObject(payload.c)) connection.clientCapabilities = payload.c as ClientCapabilities;
    const info = payload.i;
    if (Array.isArray(info) && typeof info[0] === 'string' && typeof info[1] === 'string') {
      connection.clientInfo = { name: info[0], version: info[1] } satisfies Implementation;
    }
    return connection;
  } catch {
    return { id }; // malformed: capabilities unknown, never a crash
  }
}

// A client repeats its id on every request: decode each distinct id once.
const cache = new Map<string, Connection>();

/** A fresh Connection (the core may write to it) rebuilt from an `Mcp-Session-Id` header. */
export function connectionFromSession(header: string): Connection {
  let facts = cache.get(header);
  if (facts === undefined) {
    facts = decode(header);
    if (cache.size >= 1000) cache.clear();
    cache.set(header, facts);
  }
  return { ...facts };
}
