/**
 * Issue 24, finding 6: examples/roles (what users copy) named no principal, so every per-principal
 * protection was off between its users: gus could use ada's 2025 session id, and ada's listen streams
 * counted against nobody's quota. The example now binds the principal to the verified user.
 */
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../examples/roles/server.js';
import { rolesServer } from '../support/roles-server.js';

const { mcp, url } = rolesServer();

const headers = (token: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...extra,
});
const post = (token: string, body: object, extra: Record<string, string> = {}) =>
  fetch(url(), { method: 'POST', headers: headers(token, extra), body: JSON.stringify(body) });

describe('examples/roles binds the principal', () => {
  it('each token is its own principal', () => {
    expect(mcp.principalOf({ user: TOKENS['token-ada']! })).toBe('ada');
    expect(mcp.principalOf({ user: TOKENS['token-gus']! })).toBe('gus');
  });

  it("ada's 2025 session id names no session for gus (404)", async () => {
    const init = await post('token-ada', {
      jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ada', version: '1' } },
    });
    const session = init.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const own = await post('token-ada', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' });
    expect(own.status).toBe(200);
    const stolen = await post('token-gus', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' });
    expect(stolen.status).toBe(404);
  });

  it("ada's listen streams use ada's quota: past it ada is refused, gus is not", async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const controllers: AbortController[] = [];
    const listen = (user: keyof typeof TOKENS) => {
      const controller = new AbortController();
      controllers.push(controller);
      return mcp.dispatch(
        { jsonrpc: '2.0', id: controllers.length, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } },
        { scope: { user: TOKENS[user]! }, send: () => {}, signal: controller.signal },
      );
    };
    try {
      for (let i = 0; i < 10; i++) void listen('token-ada');
      const refused = await Promise.race([listen('token-ada'), new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]);
      expect((refused?.reply as any)?.error, 'the 11th stream of ada is refused').toBeDefined();
      const gus = listen('token-gus');
      const settledEarly = await Promise.race([Promise.resolve(gus).then(() => true), new Promise((r) => setTimeout(() => r(false), 50))]);
      expect(settledEarly).toBe(false); // gus's stream is open, not refused
    } finally {
      for (const c of controllers) c.abort();
    }
  });
});
