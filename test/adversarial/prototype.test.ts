/**
 * No prototype pollution through anything a peer sends: tool arguments under every kind of schema,
 * prompt arguments, template variables, `_meta`, client capabilities, MRTR answers and 2025 session ids.
 * After each attack Object.prototype (and friends) must be unchanged, and capabilities must not be
 * granted through `__proto__`.
 */
import * as z from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { modernMeta } from '../fuzz/support/messages.js';
import { pollution } from '../fuzz/support/oracle.js';

afterEach(() => {
  expect(pollution()).toEqual([]);
});

const PAYLOADS = [
  '{"__proto__":{"isAdmin":true,"polluted":"yes"}}',
  '{"constructor":{"prototype":{"isAdmin":true,"polluted":"yes"}}}',
  '{"prototype":{"isAdmin":true}}',
  '{"a":{"__proto__":{"isAdmin":true}},"b":[{"__proto__":{"polluted":"yes"}}]}',
  '{"__proto__":{"__proto__":{"polluted":"yes"}}}',
  '{"toString":"x","valueOf":"y","hasOwnProperty":"z"}',
];

type Seen = { protoIsObject: boolean; isAdmin: unknown; ownKeys: string[]; assignChangesProto: boolean };

/** Handlers that Object.assign() their arguments into another object (see the note at the end). */
let assignChangedProto = 0;

function server() {
  const seen: Record<string, Seen[]> = {};
  const record = (name: string) => (args: unknown) => {
    const a = args as Record<string, unknown>;
    const spread = { ...a };
    // Object.assign uses [[Set]]: an own "__proto__" key (as JSON.parse makes it) replaces the target's
    // prototype. That is the handler's object, not a global; counted and documented, not asserted.
    const assigned = Object.assign({}, a);
    const assignChangesProto = Object.getPrototypeOf(assigned) !== Object.prototype;
    if (assignChangesProto) assignChangedProto++;
    (seen[name] ??= []).push({
      protoIsObject: Object.getPrototypeOf(a) === Object.prototype && Object.getPrototypeOf(spread) === Object.prototype,
      isAdmin: a.isAdmin ?? spread.isAdmin,
      ownKeys: Object.keys(a),
      assignChangesProto,
    });
    return 'ok';
  };
  const mcp = new MiniMCP({ name: 'proto', version: '1', onError: () => {} });
  mcp.tool('none', {}, record('none'));
  mcp.tool('json_open', { input: { type: 'object', additionalProperties: true } }, record('json_open'));
  mcp.tool('json_nested', { input: { type: 'object', properties: { a: { type: 'object' } } } }, record('json_nested'));
  mcp.tool('zod_object', { input: z.object({ a: z.unknown().optional() }) }, record('zod_object'));
  mcp.tool('zod_loose', { input: z.looseObject({}) }, record('zod_loose'));
  mcp.tool('zod_record', { input: z.record(z.string(), z.unknown()) }, record('zod_record'));
  mcp.prompt('p', { arguments: [{ name: 'x' }] }, record('prompt'));
  mcp.resourceTemplate('t://{__proto__}/{constructor}', {}, (_uri, vars) => record('template')(vars));
  return { mcp, seen };
}

describe('tool and prompt arguments', () => {
  for (const tool of ['none', 'json_open', 'json_nested', 'zod_object', 'zod_loose', 'zod_record']) {
    it(`${tool}: no pollution, and the arguments object keeps Object.prototype`, async () => {
      const { mcp, seen } = server();
      for (const payload of PAYLOADS) {
        const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":${payload}}}`;
        const reply = JSON.parse((await mcp.handle(text)) as string);
        expect(reply.id).toBe(1);
        expect(reply.result).toBeDefined();
      }
      for (const s of seen[tool] ?? []) {
        expect(s.protoIsObject).toBe(true);
        expect(s.isAdmin).toBeUndefined();
      }
    });
  }

  it('prompt arguments', async () => {
    const { mcp, seen } = server();
    for (const payload of PAYLOADS) {
      await mcp.handle(`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":${payload}}}`);
    }
    for (const s of seen.prompt ?? []) expect(s.isAdmin).toBeUndefined();
  });

  it('template variables named __proto__ and constructor are plain own properties', async () => {
    const { mcp, seen } = server();
    const reply = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 't://evil/proto' } })) as any;
    expect(reply.result).toBeDefined();
    expect(seen.template?.[0]).toMatchObject({ protoIsObject: true, isAdmin: undefined, ownKeys: ['__proto__', 'constructor'] });
  });
});

describe('capabilities are never granted through __proto__', () => {
  function capabilityServer() {
    const mcp = new MiniMCP({ name: 'caps', version: '1', onError: () => {} });
    mcp.tool('needs_sampling', { requires: { sampling: {} } }, () => 'granted');
    mcp.tool('asks', {}, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: {} } }, { key: 'k' });
      return `asked: ${answer.action}`;
    });
    return mcp;
  }

  it('2026 _meta clientCapabilities {"__proto__":{"sampling":{}}} is -32021', async () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"needs_sampling","arguments":{},"_meta":` +
      `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"__proto__":{"sampling":{}}}}}}`;
    expect(JSON.parse((await capabilityServer().handle(text)) as string)).toMatchObject({ id: 1, error: { code: -32021 } });
  });

  it('a _meta whose __proto__ key holds the 2026 fields does not make a request 2026', async () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"__proto__":${JSON.stringify(modernMeta())}}}}`;
    expect(JSON.parse((await capabilityServer().handle(text)) as string)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('a forged 2025 session id whose capabilities hide elicitation under __proto__ names no session (404): nothing is granted', async () => {
    const handler = createFetchHandler(capabilityServer(), { onError: () => {} });
    const payload = Buffer.from('{"v":"2025-11-25","c":{"__proto__":{"elicitation":{}}},"i":["a","b"]}').toString('base64url');
    const response = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': `AAAAAAAAAAAAAAAAAAAAAA.${payload}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'asks', arguments: {} } }),
    }));
    expect(response.status).toBe(404);
    expect(((await response.json()) as any).error.code).toBe(-32600);
  });

  it('initialize with __proto__ capabilities and a huge experimental block (the session id shrinking path)', async () => {
    const handler = createFetchHandler(capabilityServer(), { onError: () => {} });
    const capabilities = `{"__proto__":{"elicitation":{}},"experimental":{"big":"${'x'.repeat(5_000)}"}}`;
    const response = await handler(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${capabilities},"clientInfo":{"name":"a","version":"1"}}}`,
    }));
    expect(response.status).toBe(200);
    const session = response.headers.get('mcp-session-id')!;
    expect(session.length).toBeLessThanOrEqual(1024);
  });
});

describe('MRTR answers and requestState', () => {
  it('inputResponses full of __proto__ keys pollute nothing', async () => {
    const mcp = new MiniMCP({ name: 'm', version: '1', onError: () => {} });
    mcp.tool('ask', {}, async (_a, ctx) => {
      const answer = await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } }, { key: 'k' });
      return JSON.stringify(answer);
    });
    const meta = JSON.stringify(modernMeta({ elicitation: {} }));
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":${meta},` +
      `"inputResponses":{"__proto__":{"polluted":"yes"},"k":{"action":"accept","content":{"__proto__":"isAdmin"}}}}}`;
    const reply = JSON.parse((await mcp.handle(text)) as string);
    expect(reply.result.content[0].text).toContain('__proto__'); // carried as data
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('what handlers should know', () => {
  it('arguments may carry an own "__proto__" key: Object.assign / naive deep merges of them change the target\'s prototype', async () => {
    const { mcp } = server();
    await mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"none","arguments":{"__proto__":{"isAdmin":true}}}}');
    console.info(`[measure] handlers whose Object.assign({}, args) got a replaced prototype so far in this file: ${assignChangedProto} ` +
      '(JSON.parse semantics; the framework passes arguments as parsed; Zod object/record schemas rebuild them safely)');
    expect(assignChangedProto).toBeGreaterThan(0);
  });
});
