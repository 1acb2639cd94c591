/**
 * One handler calling ctx.elicit() over a real stdio child process, answered by the official clients:
 * SDK v1 (2025: a JSON-RPC request on the stream, answered on stdin) and client v2 pinned to
 * 2026-07-28 (MRTR: input_required, then a retry carrying inputResponses and requestState).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';

const SERVER = { command: process.execPath, args: ['--import', 'tsx', 'test/integration/servers/ask-stdio.ts'], cwd: process.cwd(), stderr: 'pipe' as const };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {});
});

describe('ctx.elicit() over stdio', () => {
  it('2025 (SDK v1): the server sends elicitation/create and the answer comes back on stdin', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(new StdioTransportV1(SERVER));
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Ada (handshake)' }]);
    expect(asked).toEqual(['Your name?']);
  });

  it('2026-07-28 (client v2): input_required, then the retry with the answer completes', async () => {
    const client = new ClientV2({ name: 'v2', version: '2.0.0' }, {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    });
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    const transport = new StdioTransportV2(SERVER);
    const sent: Array<{ method?: string; params?: Record<string, unknown> }> = [];
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      sent.push(message as (typeof sent)[number]);
      return send(message);
    };
    await client.connect(transport);
    closers.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'hello Grace (stateless)' }]);
    expect(asked).toEqual(['Your name?']);
    const calls = sent.filter((m) => m.method === 'tools/call');
    expect(calls).toHaveLength(2); // the first call, then the retry
    expect(calls[1]?.params).toMatchObject({ inputResponses: { name: { action: 'accept' } }, requestState: expect.any(String) });
  });
});
