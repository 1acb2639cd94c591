/**
 * Issue 24, finding 12: a 2026 `subscriptions/listen` with `taskIds` on a server that serves no tasks
 * (no tool may run as a task) costs no store read. Before the fix each id was watched and read (200
 * listens of 1,000 ids made 289,678 Redis commands); the acknowledgement also echoed ids it could
 * never report on.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore, MiniMCP } from '../../src/index.js';

const EXT = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
};

/** A memory store that counts what a listen makes it do. */
class CountingStore extends MemoryTaskStore {
  reads = 0;
  watches = 0;
  override get(...args: Parameters<MemoryTaskStore['get']>) {
    this.reads++;
    return super.get(...args);
  }
  override watch(...args: Parameters<MemoryTaskStore['watch']>) {
    this.watches++;
    return super.watch(...args);
  }
}

function listen(mcp: MiniMCP, taskIds: string[]) {
  const controller = new AbortController();
  const sent: any[] = [];
  const outcome = mcp.dispatch(
    { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, taskIds }, _meta: META } },
    { send: (m) => void sent.push(m), signal: controller.signal },
  );
  return { outcome, sent, close: () => controller.abort() };
}

const ids = Array.from({ length: 1_000 }, (_, i) => `task-${i}`);
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('listen taskIds on a server without tasks', () => {
  it('reads and watches nothing, and acknowledges no taskIds', async () => {
    const store = new CountingStore();
    const mcp = new MiniMCP({ name: 'no-tasks', version: '1', onError: () => {}, tasks: { store } });
    mcp.tool('plain', {}, () => 'x');
    const streams = Array.from({ length: 5 }, () => listen(mcp, ids));
    await tick();
    for (const s of streams) expect(s.sent[0].params.notifications).toEqual({ toolsListChanged: true });
    expect({ reads: store.reads, watches: store.watches }).toEqual({ reads: 0, watches: 0 });
    for (const s of streams) s.close();
    for (const s of streams) expect((await s.outcome).reply).toMatchObject({ result: {} });
  });

  it('a server with a task tool still watches the ids (the bound applies only where tasks exist)', async () => {
    const store = new CountingStore();
    const mcp = new MiniMCP({ name: 'tasks', version: '1', onError: () => {}, tasks: { store } });
    mcp.tool('long', { task: 'optional' }, async () => 'x');
    const s = listen(mcp, ids.slice(0, 3));
    await tick();
    expect(s.sent[0].params.notifications).toEqual({ toolsListChanged: true, taskIds: ids.slice(0, 3) });
    expect({ reads: store.reads, watches: store.watches }).toEqual({ reads: 3, watches: 3 });
    s.close();
    await s.outcome;
  });
});
