/**
 * A 2025 server-to-client request nobody answers, on three Redis-backed instances behind nginx
 * (round-robin, no affinity, no retry; issue 15, item 3: "the idle timeout still ends a request nobody
 * answers"). The handler's idle clock is paused while the client answers (a person may take minutes),
 * so what ends the wait is `clientRequestTimeoutMs`: the tool answers isError with the timeout text,
 * the instance stays healthy, and the answer route is gone (a late answer is refused wherever it lands).
 * Its own cluster, so the members can run with short limits: idleTimeoutMs 300 (a wait it did not pause
 * would end at once with -32603) and clientRequestTimeoutMs 2000.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATE_MEMBER, clusterAvailable, startCluster, type Cluster } from './support/cluster.js';
import { post } from './support/http.js';

const available = clusterAvailable();
const CLIENT_REQUEST_TIMEOUT_MS = 2_000;

type Answer = { action: 'accept'; content: { name: string } };
/** Called with the id of each elicitation the server sends; resolves with the answer, or never. */
type OnAsk = (id: string | number) => Promise<Answer>;

/** The official clients in the 2025 era, with elicitation handled by `onAsk`; `session()` is the headers a raw POST of theirs carries. */
const clients = {
  'SDK v1': async (url: string, onAsk: OnAsk) => {
    const client = new ClientV1({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => onAsk(extra.requestId));
    const transport = new TransportV1(new URL(url));
    await client.connect(transport);
    return {
      call: (name: string) => client.callTool({ name, arguments: {} }, undefined, { timeout: 60_000 }),
      session: () => ({ 'mcp-protocol-version': transport.protocolVersion!, 'mcp-session-id': transport.sessionId! }),
      close: () => client.close(),
    };
  },
  'client v2': async (url: string, onAsk: OnAsk) => {
    const client = new ClientV2({ name: 'v2', version: '2' }, { capabilities: { elicitation: {} } }); // default negotiation: the 2025 era
    client.setRequestHandler('elicitation/create', (_request, ctx) => onAsk(ctx.mcpReq.id));
    const transport = new TransportV2(new URL(url));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    return {
      call: (name: string) => client.callTool({ name, arguments: {} }, { timeout: 60_000 }),
      session: () => ({ 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': transport.sessionId! }),
      close: () => client.close(),
    };
  },
};

describe.skipIf(!available)('cluster: a 2025 elicitation nobody answers (3 instances, Redis, nginx round-robin)', () => {
  let cluster: Cluster | undefined;
  let pids: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ script: STATE_MEMBER, env: { IDLE_TIMEOUT_MS: '300', CLIENT_REQUEST_TIMEOUT_MS: String(CLIENT_REQUEST_TIMEOUT_MS) } });
    pids = cluster.members.map((m) => String(m.pid));
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it.each(Object.keys(clients) as (keyof typeof clients)[])('%s: the wait ends with the timeout result, the instances stay healthy, a late answer is refused on every instance', async (which) => {
    const asked: (string | number)[] = [];
    let silent = true;
    const client = await clients[which](cluster!.url, (id) => {
      asked.push(id);
      return silent ? new Promise<Answer>(() => {}) : Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
    });
    try { // closed even on failure: an open client stream would hold nginx's graceful stop
      // A hang budget far past the 2 s timeout, not a speed check: without a bound the call would wait for the client's 60 s.
      const result = await Promise.race([client.call('ask'), new Promise<'hang'>((r) => setTimeout(() => r('hang'), 30_000))]);
      expect(result).toEqual({
        content: [{ type: 'text', text: `The client did not answer elicitation/create within ${CLIENT_REQUEST_TIMEOUT_MS} ms` }],
        isError: true,
      });
      expect(asked).toHaveLength(1);

      // The route is gone: the late answer, from the session it was asked of, gets what an unknown id gets, wherever it lands.
      const landed = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const late = await post(cluster!.url, { jsonrpc: '2.0', id: asked[0], result: { action: 'accept', content: { name: 'Late' } } }, client.session());
        expect(late.status).toBe(400);
        expect((await late.json()).error).toMatchObject({ code: -32600 });
        landed.add(late.headers.get('x-member') ?? 'none');
      }
      expect([...landed].sort()).toEqual([...pids].sort()); // round-robin: one on each instance, the owner among them

      // Every instance still serves, and an answered elicitation still reaches its handler.
      const served = new Set<string>();
      for (let i = 0; i < 3; i++) served.add(((await client.call('pid')).content as { text: string }[])[0]!.text);
      expect([...served].sort()).toEqual([...pids].sort());
      silent = false;
      const answered = ((await client.call('ask')).content as { text: string }[])[0]!.text;
      expect(answered).toMatch(/^hello Ada \(accept\) from \d+$/);
      expect(asked).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
