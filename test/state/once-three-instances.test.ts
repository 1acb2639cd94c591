/**
 * Issue 26 item 8: `ctx.once()` across instances. Three MiniMCP instances in this process, each on its
 * own 127.0.0.1 port, share only the requestState secret (no shared state: the steps travel with the
 * client, signed). A 2026 tools/call with two questions takes three rounds: round 1 goes to A, round 2
 * to B, round 3 to C. The handler runs on each, from the top; each side effect runs exactly once, on
 * the instance whose round first reached it, and the later instances read its sealed result.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { post, request } from './support/http.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const V = '2026-07-28';
const _meta = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'once-test', version: '1' },
};
const HEADERS = { 'mcp-protocol-version': V, 'mcp-method': 'tools/call', 'mcp-name': 'order' };
const question = (message: string) => ({ message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });

/** Every side effect, as `step@instance`, and every run of the handler, by instance. */
const effects: string[] = [];
const runs: string[] = [];

function instance(name: string): MiniMCP {
  const mcp = new MiniMCP({ name: `shop-${name}`, version: '1', requestState: { secret: SECRET } });
  mcp.tool('order', {}, async (_args, ctx) => {
    runs.push(name);
    const effect = (step: string) => () => (effects.push(`${step}@${name}`), { step, by: name });
    const order = await ctx.once('create-order', effect('create-order'));
    const size = (await ctx.elicit(question('Which size?'))).content?.v;
    const charge = await ctx.once('charge', effect('charge'));
    const confirmed = (await ctx.elicit(question('Confirm?'))).content?.v;
    const mail = await ctx.once('mail', effect('mail'));
    return JSON.stringify({ order, size, charge, confirmed, mail });
  });
  return mcp;
}

let servers: RunningServer[] = [];
beforeAll(async () => {
  servers = await Promise.all(['A', 'B', 'C'].map((name) => serve(instance(name), { port: 0 })));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** One round on one instance: the JSON-RPC answer. */
async function round(url: string, id: number, extra: Record<string, unknown> = {}): Promise<any> {
  const response = await post(url, request('tools/call', { name: 'order', arguments: {}, _meta, ...extra }, id), HEADERS);
  expect(response.status).toBe(200);
  return response.json();
}

it('round 1 on A, round 2 on B, round 3 on C: each side effect ran exactly once', async () => {
  const [a, b, c] = servers.map((s) => s.url) as [string, string, string];
  const r1 = (await round(a, 1)).result;
  expect(r1.resultType).toBe('input_required');
  expect(Object.keys(r1.inputRequests)).toEqual(['input-1']);

  const r2 = (await round(b, 2, { requestState: r1.requestState, inputResponses: { 'input-1': { action: 'accept', content: { v: 'L' } } } })).result;
  expect(r2.resultType).toBe('input_required');
  expect(Object.keys(r2.inputRequests)).toEqual(['input-2']);

  // A forged step result is refused by any instance, and runs nothing.
  const [body, mac] = (r2.requestState as string).split('.') as [string, string];
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
  payload.s.charge = [{ step: 'charge', by: 'nobody' }];
  const forged = (await round(c, 9, { requestState: `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}` })).error;
  expect(forged).toEqual({ code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' });

  const r3 = await round(c, 3, { requestState: r2.requestState, inputResponses: { 'input-2': { action: 'accept', content: { v: 'yes' } } } });
  expect(JSON.parse(r3.result.content[0].text)).toEqual({
    order: { step: 'create-order', by: 'A' }, size: 'L', charge: { step: 'charge', by: 'B' }, confirmed: 'yes', mail: { step: 'mail', by: 'C' },
  });
  expect(runs).toEqual(['A', 'B', 'C']); // the handler ran from the top on each instance
  expect(effects).toEqual(['create-order@A', 'charge@B', 'mail@C']); // each side effect once
});
