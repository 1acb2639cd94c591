/**
 * Issue 24, finding 8: a name the client chooses is looked up among own keys only. Before the fix,
 * `completion/complete` with the argument name `constructor` called Object's constructor as a
 * completer (-32603 and a stack trace in the log), and a `tasks/update` answer keyed `toString` or
 * `__proto__` was stored as an answer the task never asked for.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, MiniMCP, type TaskRecord } from '../../src/index.js';

const INHERITED = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'isPrototypeOf'];

function server() {
  const logged: unknown[] = [];
  const mcp = new MiniMCP({ name: 'own', version: '1', onError: (error) => void logged.push(error) });
  mcp.prompt('p', { arguments: [{ name: 'topic' }], complete: { topic: () => ['maths'] } }, () => 'p');
  mcp.prompt('needs', { arguments: [{ name: 'constructor', required: true }, { name: 'toString', required: true }] }, () => 'n');
  mcp.resourceTemplate('t://{id}', { complete: { id: () => ['1'] } }, (uri) => String(uri));
  return { mcp, logged };
}

const complete = (ref: object, name: string, context?: unknown) => ({
  jsonrpc: '2.0', id: 1, method: 'completion/complete',
  params: { ref, argument: { name, value: '' }, ...(context === undefined ? {} : { context: { arguments: context } }) },
});

describe('completion/complete looks up own completers only', () => {
  for (const ref of [{ type: 'ref/prompt', name: 'p' }, { type: 'ref/resource', uri: 't://{id}' }]) {
    it(`${ref.type}: an inherited name has no completer (empty values, nothing logged)`, async () => {
      const { mcp, logged } = server();
      for (const name of INHERITED) {
        const reply = (await mcp.handle(complete(ref, name))) as any;
        expect(reply.error, name).toBeUndefined();
        expect(reply.result.completion, name).toEqual({ values: [], total: 0, hasMore: false });
      }
      expect(logged).toEqual([]);
      // A real name still completes.
      const real = (await mcp.handle(complete(ref, ref.type === 'ref/prompt' ? 'topic' : 'id'))) as any;
      expect(real.result.completion.values.length).toBe(1);
    });
  }

  it('context.arguments that is not an object of strings is -32602', async () => {
    const { mcp } = server();
    for (const context of ['x', [1], { a: 1 }]) {
      const reply = (await mcp.handle(complete({ type: 'ref/prompt', name: 'p' }, 'topic', context))) as any;
      expect(reply.error?.code, JSON.stringify(context)).toBe(-32602);
    }
  });
});

describe('prompts/get checks required arguments among own keys', () => {
  it('a required argument named like an Object.prototype member is missing when not sent', async () => {
    const { mcp } = server();
    const reply = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'needs', arguments: {} } })) as any;
    expect(reply.error).toMatchObject({ code: -32602, data: ['constructor', 'toString'] });
  });
});

describe('the memory task store takes answers only for keys it asked', () => {
  function waitingTask(store: MemoryTaskStore): string {
    const now = Date.now();
    const task: TaskRecord = {
      taskId: 't1', principal: 'alice', protocolVersion: '2026-07-28', status: 'working',
      createdAt: new Date(now).toISOString(), lastUpdatedAt: new Date(now).toISOString(),
      ttlMs: 60_000, expiresAt: now + 60_000, owner: 'me',
    };
    expect(store.create(task)).toBe(true);
    store.ask('t1', { q: { method: 'elicitation/create', params: {} } });
    return 't1';
  }

  it('inherited keys are ignored, the prototype of the answers is untouched, the task keeps waiting', () => {
    const store = new MemoryTaskStore();
    const id = waitingTask(store);
    const responses = JSON.parse('{"__proto__":{"q":{"action":"accept"}},"toString":{"action":"accept"},"constructor":1}');
    store.answer(id, 'alice', responses);
    const task = store.get(id, 'alice') as TaskRecord;
    expect(task.status).toBe('input_required');
    expect(task.inputResponses).toBeUndefined();
    expect(store.take(id, 'q')).toBeUndefined();
    expect(store.take(id, 'toString')).toBeUndefined();
    store.answer(id, 'alice', { q: { action: 'accept' } });
    expect(store.take(id, 'q')).toEqual({ value: { action: 'accept' } });
  });
});
