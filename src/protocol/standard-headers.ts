/**
 * SEP-2243 standard request headers (2026-07-28 over HTTP): `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers declared with `x-mcp-header`. A header that disagrees with the body is -32020.
 */
import { ErrorCode, McpError } from './errors.js';
import type { JsonObject } from './jsonrpc.js';

/**
 * Header lookup by lower-case name: Web `Headers` fits (it ignores case), and so does node's
 * `IncomingMessage.headers`, whose names are lower-case.
 */
export interface HeaderLookup {
  get(name: string): string | null | undefined;
}

const mismatch = (message: string): McpError => new McpError(ErrorCode.HeaderMismatch, message, undefined, 400);

/** The body field `Mcp-Name` must mirror, per method. */
function nameFieldOf(method: string): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return 'name';
  if (method === 'resources/read') return 'uri';
  // The tasks extension's methods (tasks/result and tasks/list are not 2026 methods: they are refused, -32601, not checked).
  if (method === 'tasks/get' || method === 'tasks/update' || method === 'tasks/cancel') return 'taskId';
  return undefined;
}

const BASE64_VALUE = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * Decodes a header value: `=?base64?...?=` is Base64 of UTF-8; anything else is literal.
 * Returns undefined for a wrapped value whose Base64 is malformed.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim();
  if (!value.startsWith('=?base64?') || !value.endsWith('?=')) return value;
  const match = BASE64_VALUE.exec(value);
  const b64 = match?.[1];
  if (b64 === undefined || b64.length % 4 !== 0) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** Encodes a value for a header: visible ASCII as is, anything else (or edge whitespace) in Base64. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith('=?base64?')) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

/** Checks `Mcp-Method` and `Mcp-Name` against the body. */
export function checkStandardHeaders(
  method: string,
  params: JsonObject | undefined,
  headers: HeaderLookup,
): McpError | undefined {
  const methodHeader = headers.get('mcp-method');
  if (methodHeader === null || methodHeader === undefined) return mismatch('Missing Mcp-Method header');
  if (methodHeader.trim() !== method) return mismatch(`Mcp-Method header does not match the body method ${method}`);
  const field = nameFieldOf(method);
  if (field === undefined) return undefined;
  const bodyValue = params?.[field];
  if (typeof bodyValue !== 'string') return undefined;
  const nameHeader = headers.get('mcp-name');
  if (nameHeader === null || nameHeader === undefined) return mismatch('Missing Mcp-Name header');
  if (decodeHeaderValue(nameHeader) !== bodyValue) return mismatch(`Mcp-Name header does not match params.${field}`);
  return undefined;
}

/** One argument a tool mirrors into a header (`x-mcp-header` on an input-schema property). */
export interface ParamHeader {
  property: string;
  header: string;
}

/** Collects `x-mcp-header` declarations from the top-level properties of an input schema. */
export function paramHeadersOf(inputSchema: JsonObject): ParamHeader[] {
  const props = inputSchema.properties as Record<string, JsonObject> | undefined;
  const out: ParamHeader[] = [];
  if (typeof props !== 'object' || props === null) return out;
  const seen = new Set<string>();
  for (const [property, schema] of Object.entries(props)) {
    const header = schema?.['x-mcp-header'];
    if (header === undefined) continue;
    if (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) {
      throw new Error(`x-mcp-header on "${property}" must be a non-empty RFC 9110 token`);
    }
    if (schema.type !== 'string' && schema.type !== 'integer' && schema.type !== 'boolean') {
      throw new Error(`x-mcp-header on "${property}" needs type string, integer or boolean`);
    }
    if (seen.has(header.toLowerCase())) throw new Error(`x-mcp-header "${header}" is declared twice`);
    seen.add(header.toLowerCase());
    out.push({ property, header });
  }
  return out;
}

/** Checks every declared `Mcp-Param-*` header against the arguments in the body. */
export function checkParamHeaders(
  declared: readonly ParamHeader[],
  args: JsonObject,
  headers: HeaderLookup,
): McpError | undefined {
  for (const { property, header } of declared) {
    const value = args[property];
    const raw = headers.get(`mcp-param-${header.toLowerCase()}`);
    if (value === undefined || value === null) continue;
    if (raw === null || raw === undefined) return mismatch(`Missing Mcp-Param-${header} header`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return mismatch(`Mcp-Param-${header} header has invalid Base64`);
    // Integers travel in plain decimal: "0x2A" or "4.2e1" would route differently from the body.
    const same = typeof value === 'number' ? /^-?(0|[1-9]\d*)$/.test(decoded) && Number(decoded) === value : decoded === String(value);
    if (!same) return mismatch(`Mcp-Param-${header} header does not match arguments.${property}`);
  }
  return undefined;
}
