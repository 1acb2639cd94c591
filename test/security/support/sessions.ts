/** 2025 sessions through the core (no HTTP): one server, principals by scope, each session minted by `initialize`. */
import { MiniMCP, type MiniMCPOptions } from '../../../src/index.js';

export type Scope = { principal: string };
const V = '2025-11-25';

export function sessionServer(options: Partial<MiniMCPOptions<Scope>> = {}) {
  const errors: unknown[] = [];
  // These tests fill session bounds with hundreds of requests at once: the rate limit, tested on its own
  // (rate-limits.test.ts), is off here so that the bound under test is the one that answers.
  const mcp = new MiniMCP<Scope>({ name: 'bounds', version: '1', onError: (error) => errors.push(error), rateLimit: false, ...options });
  mcp.resource('test://watched', {}, () => 'w');
  let n = 0;
  /** A new session of `principal`. */
  async function open(principal: string): Promise<string> {
    const outcome = await mcp.dispatch(
      { jsonrpc: '2.0', id: ++n, method: 'initialize', params: { protocolVersion: V, capabilities: {}, clientInfo: { name: principal, version: '1' } } },
      { scope: { principal }, sessions: true },
    );
    return outcome.session!;
  }
  /** One request on a session; the reply. */
  async function send(principal: string, session: string, method: string, params: object = {}): Promise<any> {
    return (await mcp.dispatch({ jsonrpc: '2.0', id: ++n, method, params }, { scope: { principal }, session })).reply;
  }
  return { mcp, errors, open, send };
}
