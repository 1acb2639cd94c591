/**
 * Issue 36: remote Streamable HTTP upstreams we did not write, behind a MiniMCP gateway, driven by
 * both official clients in both eras — a server on the official SDK v2 (it speaks 2026-07-28, so the
 * gateway talks to it statelessly and answers its `input_required` by asking the caller: the era
 * bridge the other way) and server-everything over its own Streamable HTTP (2025, sessions).
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpUpstream, Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { clientV1, clientV2, ELICITED, EVERYTHING, freePort, runServer, SAMPLED, expectSameLists } from './support.js';

const SDK2 = fileURLToPath(new URL('./servers/sdk2-upstream.mjs', import.meta.url));
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];

async function gatewayFor(url: string, headers?: Record<string, string>): Promise<{ gateway: RunningServer; proxied: Proxied }> {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {}, onDebug: () => {} });
  const proxied = await mcp.proxy({ url, headers, name: 'remote', log: () => {} });
  const gateway = await serve(mcp, { port: 0 });
  closers.push(() => gateway.close(), () => proxied.close());
  return { gateway, proxied };
}

afterAll(async () => {
  for (const close of closers) await close();
  for (const child of children) child.kill();
});

describe('an SDK v2 server (2026-07-28) behind the gateway', () => {
  let gateway: RunningServer;
  let proxied: Proxied;
  let upstreamUrl: string;
  beforeAll(async () => {
    const { child, output } = await runServer([SDK2], /http:\/\/\S+\n/);
    children.push(child);
    upstreamUrl = output.trim();
    ({ gateway, proxied } = await gatewayFor(upstreamUrl));
  }, 30_000);

  it('speaks the stateless era to it, and its lists equal what a client sees directly', async () => {
    expect((proxied.upstream as HttpUpstream).era).toBe('stateless');
    const direct = await clientV2(upstreamUrl);
    const client = await clientV2(gateway.url);
    await expectSameLists(client, direct);
  }, 30_000);

  for (const era of ['2025 (SDK v1)', '2026 (client v2)'] as const) {
    it(`${era}: lists, calls, progress, resources, templates, prompts`, async () => {
      const client = era.startsWith('2025') ? await clientV1(gateway.url) : await clientV2(gateway.url);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'wait', 'cancelled', 'steps', 'ask']);
        expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'hi' }]);
        const progress: number[] = [];
        const onprogress = (p: { progress: number }) => void progress.push(p.progress);
        if (era.startsWith('2025')) await (client as Awaited<ReturnType<typeof clientV1>>).callTool({ name: 'steps', arguments: {} }, undefined, { onprogress });
        else await (client as Awaited<ReturnType<typeof clientV2>>).callTool({ name: 'steps', arguments: {} }, { onprogress });
        expect(progress).toEqual([1, 2, 3]);
        expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([{ uri: 'docs://readme', mimeType: 'text/plain', text: 'read me' }]);
        expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['docs://pages/{id}']);
        expect((await client.readResource({ uri: 'docs://pages/9' })).contents[0]).toMatchObject({ text: 'page 9' });
        expect(JSON.stringify((await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).messages)).toContain('Greet Ada');
      } finally {
        await client.close();
      }
    }, 30_000);

    it(`${era}: the upstream's input_required reaches the caller (2025: on its stream; 2026: as MRTR)`, async () => {
      const client = era.startsWith('2025') ? await clientV1(gateway.url) : await clientV2(gateway.url);
      try {
        const result = await client.callTool({ name: 'ask', arguments: {} });
        expect(result.content).toEqual([{ type: 'text', text: `hello ${ELICITED.content.name}, the model said ${SAMPLED.content.text}` }]);
      } finally {
        await client.close();
      }
    }, 30_000);
  }

  it('a call the client cancels is cancelled upstream (the upstream counts it)', async () => {
    const client = await clientV1(gateway.url);
    try {
      const count = async () => Number(((await client.callTool({ name: "cancelled", arguments: {} })).content as { text: string }[])[0]?.text);
      const before = await count();
      const controller = new AbortController();
      const waiting = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 300));
      controller.abort();
      await expect(waiting).rejects.toThrow();
      await expect.poll(count, { timeout: 5_000 }).toBe(before + 1);
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe('server-everything over its own Streamable HTTP (2025) behind the gateway', () => {
  let gateway: RunningServer;
  let upstreamUrl: string;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const { child } = await runServer([EVERYTHING, 'streamableHttp'], /listening on port/, { PORT: String(port) });
    children.push(child);
    upstreamUrl = `http://127.0.0.1:${port}/mcp`;
    ({ gateway } = await gatewayFor(upstreamUrl));
  }, 30_000);

  it('an upstream that restarted (its sessions gone): -32603 while it is down, then a new session, and served', async () => {
    const client = await clientV1(gateway.url);
    try {
      const old = children.pop()!;
      old.kill('SIGKILL');
      await new Promise((resolve) => old.once('exit', resolve));
      await expect(client.callTool({ name: 'echo', arguments: { message: 'down' } })).rejects.toMatchObject({ code: -32603 });
      const { child } = await runServer([EVERYTHING, 'streamableHttp'], /listening on port/, { PORT: String(port) });
      children.push(child);
      expect((await client.callTool({ name: 'echo', arguments: { message: 'again' } })).content).toEqual([{ type: 'text', text: 'Echo: again' }]);
    } finally {
      await client.close();
    }
  }, 30_000);

  it("its lists equal what a client declaring the gateway's capabilities sees directly; progress travels", async () => {
    const direct = new ClientV1({ name: 'direct', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } });
    await direct.connect(new TransportV1(new URL(upstreamUrl)));
    const client = await clientV1(gateway.url);
    try {
      expect((await client.listTools()).tools).toEqual((await direct.listTools()).tools);
      expect((await client.listPrompts()).prompts).toEqual((await direct.listPrompts()).prompts);
      expect((await client.listResources()).resources).toEqual((await direct.listResources()).resources);
      const progress: number[] = [];
      await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      expect(progress).toEqual([1, 2, 3]);
    } finally {
      await client.close();
      await direct.close();
    }
  }, 30_000);

  for (const era of ['2025 (SDK v1)', '2026 (client v2)'] as const) {
    it(`${era}: calls, sampling and elicitation bridged, resources and prompts`, async () => {
      const client = era.startsWith('2025') ? await clientV1(gateway.url) : await clientV2(gateway.url);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('trigger-sampling-request');
        expect((await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
        expect(JSON.stringify((await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'p', maxTokens: 5 } })).content)).toContain(SAMPLED.content.text);
        expect(JSON.stringify((await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })).content)).toContain(ELICITED.content.name);
        expect((await client.readResource({ uri: 'demo://resource/dynamic/text/3' })).contents.length).toBe(1);
        expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('simple-prompt');
      } finally {
        await client.close();
      }
    }, 30_000);
  }
});
