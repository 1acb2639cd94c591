/**
 * DNS-rebinding protection for `minimcp dev`'s own endpoints (the playground, its event stream, the
 * 503 of a server that failed to load): the rule /mcp applies by default. A page on evil.example that
 * re-points its name to 127.0.0.1 must not read load errors (file paths, source lines).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_HOSTS, hostAllowed, hostRule, originAllowed, type HostRule } from '../transports/http/origin.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/** Loopback names, and the address dev listens on when it names one (`--host 192.168.1.5`). */
export function devHostRule(listenHost: string): HostRule {
  const named = WILDCARDS.has(listenHost) ? [] : [listenHost.includes(':') ? `[${listenHost}]` : listenHost];
  return hostRule([...DEFAULT_HOSTS, ...named], undefined);
}

/** True when the request may be answered; otherwise it is answered 403 here (errors.md) and false. */
export function admitted(rule: HostRule, req: IncomingMessage, res: ServerResponse): boolean {
  if (hostAllowed(rule, req.headers.host) && originAllowed(rule, req.headers.origin)) return true;
  res.writeHead(403, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Forbidden: Host or Origin not allowed' } }));
  return false;
}
