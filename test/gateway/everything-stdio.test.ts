/**
 * Issue 36: server-everything (an upstream we did not write) over stdio, behind a MiniMCP gateway
 * served over HTTP, driven by both official clients in both eras: lists equal the upstream's, calls,
 * progress, sampling, elicitation and roots (2025 on the stream, 2026 as MRTR), resources, templates,
 * prompts, completion; an upstream killed mid-call is answered with
 * -32603 at once and started again.
 */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import type { Proxied, StdioUpstream } from '../../src/gateway/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { clientV1, clientV2, directEverything, ELICITED, EVERYTHING, ROOTS, SAMPLED, expectSameLists } from './support.js';

let gateway: RunningServer;
let proxied: Proxied;
const logs: string[] = [];

beforeAll(async () => {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
  proxied = await mcp.proxy({ stdio: [process.execPath, EVERYTHING, 'stdio'], name: 'everything', log: (line) => void logs.push(line) });
  gateway = await serve(mcp, { port: 0 });
}, 30_000);
afterAll(async () => {
  await gateway?.close();
  await proxied?.close();
});

describe('the lists equal the upstream\'s', () => {
  it('tools, prompts, resources and templates, page by page', async () => {
    const direct = await directEverything();
    const client = await clientV1(gateway.url);
    await expectSameLists(client, direct);
  }, 30_000);
});

for (const era of ['2025 (SDK v1)', '2026 (client v2)'] as const) {
  describe(`through the gateway, ${era}`, () => {
    type AnyClient = Awaited<ReturnType<typeof clientV1>> | Awaited<ReturnType<typeof clientV2>>;
    let client: AnyClient;
    const call = (name: string, args: Record<string, unknown> = {}, options?: object) =>
      (client as Awaited<ReturnType<typeof clientV1>>).callTool({ name, arguments: args }, undefined, options);
    beforeAll(async () => {
      client = era.startsWith('2025') ? await clientV1(gateway.url) : await clientV2(gateway.url);
    });
    afterAll(async () => {
      await client.close();
    });

    it('calls tools', async () => {
      expect((await call('echo', { message: 'hi' })).content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
      expect(JSON.stringify((await call('get-sum', { a: 2, b: 40 })).content)).toContain('42');
      expect((await call('get-structured-content', { location: 'New York' })).structuredContent).toMatchObject({ temperature: expect.any(Number) });
    });

    it('passes progress on', async () => {
      const progress: number[] = [];
      const options = era.startsWith('2025') ? { onprogress: (p: { progress: number }) => void progress.push(p.progress) } : undefined;
      const result = era.startsWith('2025')
        ? await call('trigger-long-running-operation', { duration: 0.3, steps: 3 }, options)
        : await (client as Awaited<ReturnType<typeof clientV2>>).callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, { onprogress: (p) => void progress.push(p.progress) });
      expect(JSON.stringify(result.content)).toContain('completed');
      expect(progress).toEqual([1, 2, 3]);
    });

    it('bridges sampling, elicitation and roots to the caller', async () => {
      expect(JSON.stringify((await call('trigger-sampling-request', { prompt: 'six times seven', maxTokens: 10 })).content)).toContain(SAMPLED.content.text);
      expect(JSON.stringify((await call('trigger-elicitation-request')).content)).toContain(ELICITED.content.name);
      expect(JSON.stringify((await call('get-roots-list')).content)).toContain(ROOTS.roots[0]!.uri);
    });

    it('reads resources and templates, gets prompts and completes arguments', async () => {
      const read = await client.readResource({ uri: 'demo://resource/static/document/architecture.md' });
      expect(read.contents[0]).toMatchObject({ uri: 'demo://resource/static/document/architecture.md', mimeType: 'text/markdown' });
      const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
      expect(JSON.stringify(dynamic.contents)).toContain('7');
      const prompt = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } });
      expect(JSON.stringify(prompt.messages)).toContain('Paris');
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'E' } });
      expect(completion.completion.values).toContain('Engineering');
    });

    it('answers an unknown tool with -32602', async () => {
      await expect(call('nope')).rejects.toMatchObject({ code: -32602 });
    });
  });
}

describe('subscriptions', () => {
  it("a client's resources/subscribe subscribes upstream; the upstream's updates reach the client", async () => {
    const client = await clientV1(gateway.url);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    try {
      const uri = 'demo://resource/static/document/architecture.md';
      await client.subscribeResource({ uri });
      await client.callTool({ name: 'toggle-subscriber-updates', arguments: {} });
      await expect.poll(() => updates, { timeout: 12_000, interval: 200 }).toContain(uri);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('the era bridge on the wire (raw 2026 requests)', () => {
  const post = async (id: number, params: Record<string, unknown>) => {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'trigger-elicitation-request' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'trigger-elicitation-request', arguments: {}, ...params } }),
    });
    return (await response.json()) as { result: { resultType: string; inputRequests?: Record<string, { method: string }>; requestState?: string; content?: unknown } };
  };
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };

  it("the upstream's elicitation/create is an input_required result; the retry with the answer completes the call", async () => {
    const first = await post(1, { _meta });
    expect(first.result.resultType).toBe('input_required');
    expect(Object.values(first.result.inputRequests ?? {}).map((r) => r.method)).toEqual(['elicitation/create']);
    const [key] = Object.keys(first.result.inputRequests ?? {});
    const second = await post(2, { _meta, requestState: first.result.requestState, inputResponses: { [key as string]: ELICITED } });
    expect(second.result.resultType).toBe('complete');
    expect(JSON.stringify(second.result.content)).toContain(ELICITED.content.name);
  }, 30_000);
});

describe('supervision', () => {
  it('an upstream killed mid-call: -32603 within 30 s, started again, and serving', async () => {
    const upstream = proxied.upstream as StdioUpstream;
    const client = await clientV1(gateway.url);
    try {
      const started = Date.now();
      const pending = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 20 } });
      await new Promise((r) => setTimeout(r, 300));
      process.kill(upstream.pid!, 'SIGKILL');
      await expect(pending).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('everything') });
      expect(Date.now() - started).toBeLessThan(30_000);
      for (let i = 0; i < 100 && upstream.restarts === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(upstream.restarts).toBe(1);
      await expect.poll(async () => (await client.callTool({ name: 'echo', arguments: { message: 'back' } })).content, { timeout: 10_000 })
        .toEqual([{ type: 'text', text: 'Echo: back' }]);
    } finally {
      await client.close();
    }
  }, 40_000);
});
