/**
 * runInWorker (minimcp/worker): a CPU-bound tool body in a worker thread. The main thread stays free,
 * so cancellation and the idle timeout work, and both end the thread even in an endless loop.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { runInWorker } from '../../src/worker.js';

const MODULE = new URL('./fixtures/cpu-worker.mjs', import.meta.url);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server(idleTimeoutMs = 30_000) {
  const mcp = new MiniMCP({ name: 'worker', version: '1.0.0', idleTimeoutMs, onError: () => {} });
  mcp.tool('sum', { input: { type: 'object', properties: { n: { type: 'integer' } } } }, (args, ctx) =>
    runInWorker<{ total: number }>(MODULE, args, ctx).then((r) => String(r.total)));
  const counter = new SharedArrayBuffer(4);
  mcp.tool('spin', {}, (_args, ctx) => runInWorker(MODULE, { counter }, ctx, { exportName: 'spin' }));
  mcp.tool('fail', {}, (_args, ctx) => runInWorker(MODULE, {}, ctx, { exportName: 'fail' }));
  mcp.tool('refuse', {}, (_args, ctx) => runInWorker(MODULE, {}, ctx, { exportName: 'refuse' }));
  /** Whether the spinning thread still runs: its counter still moves. */
  const spinning = async () => {
    const cells = new Int32Array(counter);
    const before = Atomics.load(cells, 0);
    await sleep(100);
    return Atomics.load(cells, 0) !== before;
  };
  /**
   * Whether the thread stops: an answer does not wait for terminate(), which can take over 100 ms on a
   * loaded machine. A thread that never stops still spins after 50 samples (5 s).
   */
  const stops = async () => {
    for (let samples = 0; samples < 50; samples++) if (!(await spinning())) return true;
    return false;
  };
  return { mcp, spinning, stops, started: async () => { while (Atomics.load(new Int32Array(counter), 0) === 0) await sleep(5); } };
}

const call = (id: number, name: string, args: object = {}, meta?: object) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });

describe('runInWorker', () => {
  it('returns the worker result and forwards its progress', async () => {
    const { mcp } = server();
    const sent: any[] = [];
    const reply: any = await mcp.handle(call(1, 'sum', { n: 1000 }, { progressToken: 'p' }), { send: (m) => void sent.push(m) });
    expect(reply.result.content).toEqual([{ type: 'text', text: '500500' }]);
    expect(sent.map((m) => m.params.progress)).toEqual([250, 500, 750, 1000]);
  });

  it('the idle timeout fires while the worker spins, and ends the thread', async () => {
    const { mcp, stops } = server(300);
    const reply: any = await mcp.handle(call(1, 'spin'));
    expect(reply.error.code).toBe(-32603);
    expect(reply.error.message).toMatch(/timed out after 300 ms/);
    expect(await stops()).toBe(true);
  });

  it('cancellation ends the thread', async () => {
    const { mcp, spinning, stops, started } = server();
    const abort = new AbortController();
    const pending = mcp.handle(call(1, 'spin'), { signal: abort.signal });
    await started();
    expect(await spinning()).toBe(true);
    abort.abort();
    await pending;
    expect(await stops()).toBe(true);
  });

  it('a throwing worker function is a tool error with the generic text, whatever name the thread gave its error', async () => {
    const { mcp } = server();
    const reply: any = await mcp.handle(call(1, 'fail'));
    expect(reply.result).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
    // A name is a string the thread's code chose, not a UserError (issue 24, finding 11).
    const refused: any = await mcp.handle(call(2, 'refuse'));
    expect(refused.result).toEqual({ content: [{ type: 'text', text: 'The tool failed' }], isError: true });
  });
});
