/**
 * The example message-queue transport (examples/queue/), written only against the public entry
 * `mcp.route()`, driven by the official SDK v1 client: handshake, lists, synchronous and
 * asynchronous tools with progress, a 2025 elicitation round trip, cancellation, and principals
 * kept apart (one client's answer or cancel never reaches another's request).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MiniMCP } from '../../src/index.js';
import { MemoryQueue, type Queue } from '../../examples/queue/queue.js';
import { serveQueue } from '../../examples/queue/transport.js';

/** The client side: the SDK's Transport interface over the same queue (what a client library would ship). */
class QueueClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #unsubscribe: (() => void) | undefined;

  constructor(private readonly queue: Queue, private readonly name: string, private readonly topic = 'mcp') {}

  async start(): Promise<void> {
    this.#unsubscribe = this.queue.subscribe(`${this.topic}/${this.name}`, ({ text }) => this.onmessage?.(JSON.parse(text)));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.queue.publish(this.topic, this.name, JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.#unsubscribe?.();
    this.onclose?.();
  }
}

function server() {
  const mcp = new MiniMCP({ name: 'queued', version: '1.0.0', onError: () => {} });
  mcp.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => String(a + b));
  mcp.tool('count', { input: z.object({ to: z.number() }) }, async ({ to }, ctx) => {
    for (let i = 1; i <= to; i++) {
      await new Promise((r) => setTimeout(r, 1));
      ctx.progress(i, to);
    }
    return `counted to ${to}`;
  });
  mcp.tool('ask', {}, async (_a, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.name)}`;
  });
  let release: (() => void) | undefined;
  const aborted: string[] = [];
  mcp.tool('wait', {}, (_a, ctx) => new Promise<string>((resolve) => {
    release = () => resolve('released');
    ctx.signal.addEventListener('abort', () => {
      aborted.push(String(ctx.requestId));
      resolve('aborted');
    });
  }));
  return { mcp, aborted, release: () => release?.() };
}

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(queue: Queue, name: string, onElicit?: (message: string) => string) {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: onElicit ? { elicitation: {} } : {} });
  if (onElicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({ action: 'accept', content: { name: onElicit(request.params.message) } }));
  }
  const transport = new QueueClientTransport(queue, name);
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, transport };
}

describe('a third-party transport over a message queue, with the official SDK v1 client', () => {
  it('initializes, lists and calls a synchronous tool', async () => {
    const queue = new MemoryQueue();
    const served = serveQueue(server().mcp, queue);
    closers.push(() => served.close());
    const { client } = await connect(queue, 'alice');
    expect(client.getServerVersion()).toMatchObject({ name: 'queued', version: '1.0.0' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add', 'count', 'ask', 'wait']);
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({ content: [{ type: 'text', text: '42' }] });
  });

  it('an asynchronous tool streams progress, then its result arrives through the sink', async () => {
    const queue = new MemoryQueue();
    const served = serveQueue(server().mcp, queue);
    closers.push(() => served.close());
    const { client } = await connect(queue, 'alice');
    const progress: number[] = [];
    const result = await client.callTool({ name: 'count', arguments: { to: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(result).toEqual({ content: [{ type: 'text', text: 'counted to 3' }] });
    expect(progress).toEqual([1, 2, 3]);
  });

  it('2025 elicitation goes out on the queue and the answer comes back to the waiting handler', async () => {
    const queue = new MemoryQueue();
    const served = serveQueue(server().mcp, queue);
    closers.push(() => served.close());
    const { client } = await connect(queue, 'alice', () => 'Ada');
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });

  it('a client without the elicitation capability is never asked', async () => {
    const queue = new MemoryQueue();
    const served = serveQueue(server().mcp, queue);
    closers.push(() => served.close());
    const { client } = await connect(queue, 'bob');
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('did not declare the capability');
  });

  it('notifications/cancelled from the same client aborts its request; the same id from another client does nothing', async () => {
    const queue = new MemoryQueue();
    const { mcp, aborted, release } = server();
    const served = serveQueue(mcp, queue);
    closers.push(() => served.close());
    await connect(queue, 'alice');
    await connect(queue, 'bob');
    // Raw messages, so both clients use the same request id.
    const replies: string[] = [];
    queue.subscribe('mcp/alice', ({ text }) => replies.push(text));
    queue.publish('mcp', 'alice', JSON.stringify({ jsonrpc: '2.0', id: 'w', method: 'tools/call', params: { name: 'wait' } }));
    await new Promise((r) => setTimeout(r, 10));
    queue.publish('mcp', 'bob', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } }));
    await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toEqual([]);
    queue.publish('mcp', 'alice', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'w' } }));
    await new Promise((r) => setTimeout(r, 10));
    expect(aborted).toEqual(['w']);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(replies.filter((r) => r.includes('"id":"w"'))).toEqual([]); // a cancelled request gets no reply
  });
});
