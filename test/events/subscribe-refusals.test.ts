/**
 * events/subscribe with the real checks (minimcp/events, default egress policy): every callback a
 * delivery may not go to, and every malformed secret, is -32602 before anything is kept or sent.
 * A host name that resolves to a forbidden address is refused when verification resolves it.
 */
import { describe, expect, it } from 'vitest';
import { bearerScope, createIncidentServer } from '../../examples/events/server.js';
import { eventWebhooks } from '../../src/events/index.js';

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

describe('events/subscribe refusals through the real checks', () => {
  const webhooks = eventWebhooks({ log: () => {}, egress: { resolve: async (host) => (host === 'rebind.example' ? [{ address: '10.0.0.7', family: 4 }] : [{ address: '93.184.216.34', family: 4 }]) } });
  const mcp = createIncidentServer({ onError: () => {} }, { webhooks });
  const subscribe = async (url: string, secret = SECRET) =>
    ((await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'events/subscribe', params: { name: 'incident.created', arguments: {}, delivery: { mode: 'webhook', url, secret }, _meta: meta } }, { scope: bearerScope({ headers: { authorization: 'Bearer alice' } }) })) as any).error;

  it.each([
    ['plain http', 'http://hooks.example.com/in'],
    ['loopback', 'https://127.0.0.1/in'],
    ['IPv6 loopback', 'https://[::1]/in'],
    ['private', 'https://10.1.2.3/in'],
    ['link-local metadata', 'https://169.254.169.254/latest'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/in'],
    ['not a URL', 'hooks'],
  ])('%s is -32602', async (_label, url) => {
    expect(await subscribe(url)).toMatchObject({ code: -32602 });
  });

  it.each([['no prefix', Buffer.alloc(32).toString('base64')], ['too short', `whsec_${Buffer.alloc(8).toString('base64')}`], ['too long', `whsec_${Buffer.alloc(80).toString('base64')}`], ['not base64', 'whsec_!!!!']])(
    'a secret %s is -32602', async (_label, secret) => {
      expect(await subscribe('https://hooks.example.com/in', secret)).toMatchObject({ code: -32602 });
    });

  it('a host name resolving to a private address is refused, and nothing is kept', async () => {
    const error = await subscribe('https://rebind.example/in');
    expect(error).toMatchObject({ code: -32027, data: { reason: 'connection_refused' } }); // the category only: nothing says why
    expect(await mcp.handle({ jsonrpc: '2.0', id: 2, method: 'events/unsubscribe', params: { name: 'incident.created', arguments: {}, delivery: { url: 'https://rebind.example/in' }, _meta: meta } }, { scope: { principal: 'alice' } }))
      .toMatchObject({ error: { data: { kind: 'subscription' } } });
  });
});
