/** JSON-RPC envelope handling of the core: parse errors, invalid requests, ids, notifications, responses. */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';

const server = () => new MiniMCP({ name: 'jsonrpc-test', version: '1.0.0', onError: () => {} });

describe('parse errors (-32700)', () => {
  it('answers text that is not JSON with -32700, id null and status 400', async () => {
    const outcome = await server().dispatch('{"jsonrpc":"2.0","id":1,"method":"ping"');
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } });
  });

  it('handle() returns the parse error as a JSON string when given a string', async () => {
    const reply = await server().handle('not json at all');
    expect(typeof reply).toBe('string');
    expect(JSON.parse(reply as string)).toEqual({
      jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' },
    });
  });

  it('treats an empty string as a parse error', async () => {
    const outcome = await server().dispatch('');
    expect(outcome.status).toBe(400);
    expect((outcome.reply as any).error.code).toBe(-32700);
    expect((outcome.reply as any).id).toBeNull();
  });

  it('keeps serving after a parse error', async () => {
    const mcp = server();
    await mcp.dispatch('{{{');
    const outcome = await mcp.dispatch('{"jsonrpc":"2.0","id":7,"method":"ping"}');
    expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id: 7, result: {} }, status: 200 });
  });
});

describe('invalid requests (-32600)', () => {
  const cases: Array<[string, unknown, string | number | null, string]> = [
    ['a batch array', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], null, 'Invalid Request: batches are not supported'],
    ['an empty batch', [], null, 'Invalid Request: batches are not supported'],
    ['a number', 42, null, 'Invalid Request: expected a JSON-RPC object'],
    ['a boolean', true, null, 'Invalid Request: expected a JSON-RPC object'],
    ['null', null, null, 'Invalid Request: expected a JSON-RPC object'],
    ['jsonrpc "1.0" (id readable)', { jsonrpc: '1.0', id: 5, method: 'ping' }, 5, 'Invalid Request: jsonrpc must be "2.0"'],
    ['no jsonrpc member', { id: 'a', method: 'ping' }, 'a', 'Invalid Request: jsonrpc must be "2.0"'],
    ['jsonrpc as number 2', { jsonrpc: 2, id: 3, method: 'ping' }, 3, 'Invalid Request: jsonrpc must be "2.0"'],
    ['method not a string', { jsonrpc: '2.0', id: 9, method: 12 }, 9, 'Invalid Request: method must be a string'],
    ['method null', { jsonrpc: '2.0', id: 'm', method: null }, 'm', 'Invalid Request: method must be a string'],
    ['id boolean', { jsonrpc: '2.0', id: true, method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
    ['id float', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
    ['id object', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
    ['id null', { jsonrpc: '2.0', id: null, method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
    ['id array', { jsonrpc: '2.0', id: [1], method: 'ping' }, null, 'Invalid Request: id must be a string or an integer'],
    ['params an array', { jsonrpc: '2.0', id: 4, method: 'ping', params: [1, 2] }, 4, 'Invalid Request: params must be an object'],
    ['params a string', { jsonrpc: '2.0', id: 4, method: 'ping', params: 'x' }, 4, 'Invalid Request: params must be an object'],
    ['params null', { jsonrpc: '2.0', id: 4, method: 'ping', params: null }, 4, 'Invalid Request: params must be an object'],
    ['no method, no result', { jsonrpc: '2.0', id: 8 }, 8, 'Invalid Request: missing method'],
  ];

  for (const [label, message, id, text] of cases) {
    it(`rejects ${label} as parsed object`, async () => {
      const outcome = await server().dispatch(message);
      expect(outcome.status).toBe(400);
      expect(outcome.reply).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: text } });
    });

    it(`rejects ${label} as text`, async () => {
      const reply = await server().handle(JSON.stringify(message));
      expect(JSON.parse(reply as string)).toEqual({ jsonrpc: '2.0', id, error: { code: -32600, message: text } });
    });
  }

  it('JSON text that is a string value is -32600, not a parse error', async () => {
    const outcome = await server().dispatch('"hello"');
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: expected a JSON-RPC object' } });
  });

  it('a very large integer id (unsafe) is unreadable: id null', async () => {
    const outcome = await server().dispatch('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' },
    });
  });

  it('accepts string, zero, negative and empty-string ids and echoes them exactly', async () => {
    const mcp = server();
    for (const id of ['abc', 0, -3, '', 'x'.repeat(200)]) {
      const outcome = await mcp.dispatch({ jsonrpc: '2.0', id, method: 'ping' });
      expect(outcome).toEqual({ reply: { jsonrpc: '2.0', id, result: {} }, status: 200 });
    }
  });

  it('ignores unknown top-level members of a valid request', async () => {
    const outcome = await server().dispatch({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true });
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('responses from the client', () => {
  it('a result no request waits for is -32600 with its id', async () => {
    const outcome = await server().dispatch({ jsonrpc: '2.0', id: 'nobody', result: {} });
    expect(outcome.status).toBe(400);
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: 'nobody',
      error: { code: -32600, message: 'Invalid Request: no request is waiting for this response' },
    });
  });

  it('an error response no request waits for is -32600 with its id', async () => {
    const outcome = await server().dispatch({ jsonrpc: '2.0', id: 12, error: { code: -1, message: 'x' } });
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: 12,
      error: { code: -32600, message: 'Invalid Request: no request is waiting for this response' },
    });
  });

  it('a malformed response (result not an object) is -32600 "malformed response"', async () => {
    const outcome = await server().dispatch({ jsonrpc: '2.0', id: 2, result: 5 });
    expect(outcome.reply).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: malformed response' } });
  });

  it('a response with an unreadable id is -32600 with id null', async () => {
    const outcome = await server().dispatch({ jsonrpc: '2.0', id: 2.5, result: {} });
    expect(outcome.reply).toEqual({
      jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' },
    });
  });
});

describe('notifications', () => {
  it('are never answered: handle() returns undefined and dispatch() 202', async () => {
    const mcp = server();
    for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/whatever', 'ping']) {
      expect(await mcp.handle({ jsonrpc: '2.0', method })).toBeUndefined();
      expect(await mcp.handle(JSON.stringify({ jsonrpc: '2.0', method, params: {} }))).toBeUndefined();
      expect(await mcp.dispatch({ jsonrpc: '2.0', method })).toEqual({ reply: undefined, status: 202 });
    }
  });

  it('notifications/initialized marks the connection', async () => {
    const connection: { initialized?: boolean } = {};
    await server().handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, { connection });
    expect(connection.initialized).toBe(true);
  });

  it('a cancellation for an unknown request is ignored', async () => {
    const mcp = server();
    expect(await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } })).toBeUndefined();
    expect(await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('handle() forms', () => {
  it('returns a string for a string and an object for an object', async () => {
    const mcp = server();
    const text = await mcp.handle('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(text).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    const obj = await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(obj).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
