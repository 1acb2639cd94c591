/**
 * Issue 26 item 6: cancellation, timeout and shutdown are not failures. The handler that obeys
 * `ctx.signal` by throwing (the `throwIfAborted()` pattern of docs/tasks.md) is not logged as a failed
 * tool; the stop is logged once, through `onDebug`, naming the method, the tool and the reason; and
 * createTestClient surfaces a cancel as a cancel (the signal's AbortError), not McpError -32603.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createTestClient, type TestEra } from '../../src/testing/index.js';

const req = (method: string, params: Record<string, unknown>, id: string | number = 1) => ({ jsonrpc: '2.0', id, method, params });

/** A server whose `stop` tool waits for its signal and then throws, as docs/tasks.md shows. */
function server(options: { idleTimeoutMs?: number } = {}) {
  const errors: unknown[] = [];
  const debug: string[] = [];
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const mcp = new MiniMCP({ name: 'stops', version: '1', ...options, onError: (error) => errors.push(error), onDebug: (message) => debug.push(message) });
  mcp.tool('stop', {}, async (_args, ctx) => {
    started();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    ctx.signal.throwIfAborted();
    return 'not reached';
  });
  mcp.tool('never', {}, () => new Promise(() => {}));
  return { mcp, errors, debug, running };
}

describe('a stopped request is not a failure', () => {
  it('notifications/cancelled: no reply, nothing on onError, one debug line naming the tool and reason', async () => {
    const { mcp, errors, debug, running } = server();
    const connection = { id: 'c' };
    const pending = mcp.dispatch(req('tools/call', { name: 'stop' }, 'r1'), { connection });
    await running;
    await mcp.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'r1', reason: 'user pressed stop' } }, { connection });
    expect(await pending).toEqual({ reply: undefined, status: 202 });
    await new Promise((resolve) => setTimeout(resolve, 5)); // the handler's rejection comes after the answer
    expect(errors).toEqual([]);
    expect(debug).toEqual(['tools/call "stop" cancelled by the client: user pressed stop']);
  });

  it('shutdown (the transport signal): -32603 to the client, nothing on onError, one debug line', async () => {
    const { mcp, errors, debug, running } = server();
    const shutdown = new AbortController();
    const pending = mcp.dispatch(req('tools/call', { name: 'stop' }), { signal: shutdown.signal });
    await running;
    shutdown.abort(new Error('shutdown'));
    expect(((await pending).reply as { error: { code: number } }).error.code).toBe(-32603);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(errors).toEqual([]);
    expect(debug).toEqual(['tools/call "stop" stopped by the transport (shutdown or a closed connection): shutdown']);
  });

  it('an idle timeout: -32603 to the client and one debug line naming the timed-out tool', async () => {
    const { mcp, errors, debug } = server({ idleTimeoutMs: 20 });
    const { reply } = await mcp.dispatch(req('tools/call', { name: 'never' }));
    expect((reply as { error: { code: number; message: string } }).error).toMatchObject({ code: -32603, message: expect.stringContaining('timed out') });
    expect(errors).toEqual([]);
    expect(debug).toEqual(['tools/call "never" timed out: no sign of life for 20 ms (answered -32603; see ctx.resetTimeout())']);
  });

  it('a tool that fails on its own is still logged as a failure', async () => {
    const { mcp, errors, debug } = server();
    mcp.tool('boom', {}, () => {
      throw new Error('boom');
    });
    await mcp.dispatch(req('tools/call', { name: 'boom' }));
    expect(errors).toHaveLength(1);
    expect(debug).toEqual([]);
  });
});

describe.each<TestEra>(['2025-11-25', '2026-07-28'])('createTestClient, era %s: a cancel is a cancel', (era) => {
  it("rejects with the signal's reason, logs no failure and one debug line", async () => {
    const { mcp, errors, debug, running } = server();
    const client = createTestClient(mcp, { era });
    const abort = new AbortController();
    const pending = client.callTool('stop', {}, { signal: abort.signal });
    await running;
    abort.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBe(abort.signal.reason);
    expect((error as Error).name).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(errors).toEqual([]);
    expect(debug).toEqual(['tools/call "stop" cancelled by the client: This operation was aborted']);
  });

  it('an already aborted signal rejects at once with its reason', async () => {
    const { mcp } = server();
    const client = createTestClient(mcp, { era });
    await expect(client.callTool('stop', {}, { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
  });
});
