/**
 * What a caller is told when an upstream fails. An upstream's error code is passed on where our error
 * contract allows it (the JSON-RPC codes, the spec's own, an application's); the retired -32002 becomes
 * -32602 with `data.uri`; a code we never emit (-32000..-32019, an undefined spec code) becomes -32603.
 * A gone, restarting or slow upstream is -32603 naming it.
 */
import { ErrorCode, ProtocolError, ResourceNotFoundError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { UpstreamError, UpstreamUnavailable } from './types.js';

const PASSED = new Set<number>([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]);

export function callerError(error: unknown, upstream: string, uri?: string): unknown {
  if (error instanceof UpstreamUnavailable) return new ProtocolError(ErrorCode.InternalError, error.message);
  if (!(error instanceof UpstreamError)) return error;
  const { code, message, data } = error;
  if (code === -32002 || (code === -32602 && uri !== undefined && isObject(data) && typeof data.uri === 'string')) return new ResourceNotFoundError(uri ?? String((data as { uri?: unknown })?.uri));
  if (PASSED.has(code) || code > -32000 || code < -32768) return new ProtocolError(code, message, data);
  return new ProtocolError(ErrorCode.InternalError, `Upstream ${upstream} failed: ${message}`);
}
