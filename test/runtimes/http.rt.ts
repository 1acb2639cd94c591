/**
 * One runtime's server (started by scripts/runtimes.mjs from the built dist/, at RUNTIME_URL),
 * driven over real HTTP by the official clients: SDK v1 (2025-11-25), client v2 in its 2025 mode
 * ('legacy', initialize) and its 2026 mode ('auto', per-request _meta and MRTR). The same file runs
 * for every runtime, so a runtime passes exactly what Node passes.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { SignJWT, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PRIVATE_JWK, RUNTIME_ISSUER, RUNTIME_RESOURCE } from './servers/auth-keys.js';

const RUNTIME = process.env.RUNTIME_NAME ?? '';
const BASE = process.env.RUNTIME_URL ?? '';
const IS_WORKERD = RUNTIME === 'workerd';

/** Records how the server answered each POST: the transport's choice (JSON or SSE) is part of what we prove. */
function recordingFetch() {
  const seen: { method: string; status: number; contentType: string | null }[] = [];
  const gets: number[] = [];
  const fetchImpl = async (url: string | URL | Request, init?: RequestInit) => {
    // Recorded before the answer: a client response's 202 may arrive after the call it unblocked.
    const entry = { method: 'GET', status: 0, contentType: null as string | null };
    if (init?.method === 'POST' && typeof init.body === 'string') {
      entry.method = JSON.parse(init.body).method ?? 'response';
      seen.push(entry);
    }
    const response = await fetch(url, init);
    entry.status = response.status;
    entry.contentType = response.headers.get('content-type');
    if (entry.method === 'GET' && (init?.method ?? 'GET') === 'GET') gets.push(response.status);
    return response;
  };
  return { seen, gets, fetchImpl };
}

const textOf = (result: { content?: unknown }): string => ((result.content as { text?: string }[])[0]?.text ?? '');

type AnyClient = {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }, ...rest: never[]): Promise<{ content?: unknown; isError?: unknown }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  close(): Promise<void>;
};

interface Mode {
  label: string;
  era: '2025' | '2026';
  connect(path: string, fetchImpl: typeof fetch): Promise<{ client: AnyClient; progressCall(name: string, onprogress: (p: { progress: number }) => void): Promise<{ content?: unknown }> }>;
}

const accept = { action: 'accept', content: { response: 'from-the-client' } } as const;

const MODES: Mode[] = [
  {
    label: 'SDK v1 client (2025-11-25)',
    era: '2025',
    async connect(path, fetchImpl) {
      const client = new ClientV1({ name: 'rt-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async () => accept);
      await client.connect(new TransportV1(new URL(`${BASE}${path}`), { fetch: fetchImpl }));
      return {
        client: client as unknown as AnyClient,
        progressCall: async (name, onprogress) => (await client.callTool({ name, arguments: {} }, undefined, { onprogress })) as { content?: unknown },
      };
    },
  },
  ...(['legacy', 'auto'] as const).map((mode): Mode => ({
    label: `client v2, versionNegotiation ${mode} (${mode === 'legacy' ? '2025-11-25' : '2026-07-28'})`,
    era: mode === 'legacy' ? '2025' : '2026',
    async connect(path, fetchImpl) {
      const client = new ClientV2({ name: `rt-v2-${mode}`, version: '2.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode } });
      client.setRequestHandler('elicitation/create', async () => accept);
      await client.connect(new TransportV2(new URL(`${BASE}${path}`), { fetch: fetchImpl }));
      return {
        client: client as unknown as AnyClient,
        progressCall: async (name, onprogress) => (await client.callTool({ name, arguments: {} }, { onprogress })) as { content?: unknown },
      };
    },
  })),
];

describe.runIf(BASE)(`${RUNTIME}: the built package over HTTP`, () => {
  for (const mode of MODES) {
    describe(`${mode.label}: the conformance fixture`, () => {
      let client: AnyClient;
      let progressCall: Awaited<ReturnType<Mode['connect']>>['progressCall'];
      const { seen, gets, fetchImpl } = recordingFetch();
      beforeAll(async () => {
        ({ client, progressCall } = await mode.connect('/mcp', fetchImpl as typeof fetch));
      });
      afterAll(async () => client?.close());

      it('lists and calls tools (application/json)', async () => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['test_simple_text', 'test_tool_with_progress', 'test_elicitation']));
        expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe('This is a simple text response for testing.');
        expect(seen.at(-1)).toMatchObject({ method: 'tools/call', status: 200, contentType: 'application/json' });
      });

      it('reports progress on the SSE path', async () => {
        const progress: number[] = [];
        const result = await progressCall('test_tool_with_progress', (p) => void progress.push(p.progress));
        expect(textOf(result)).toBe('Tool with progress executed successfully');
        expect(progress).toEqual([0, 50, 100]);
        expect(seen.at(-1)).toMatchObject({ method: 'tools/call', status: 200, contentType: 'text/event-stream' });
      });

      it(mode.era === '2025' ? 'elicits over the response stream (2025)' : 'elicits through input_required and a retry (2026 MRTR)', async () => {
        const before = seen.length;
        const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Name?' } });
        expect(textOf(result)).toBe('User response: action=accept, content={"response":"from-the-client"}');
        const calls = seen.slice(before).filter((s) => s.method === 'tools/call');
        if (mode.era === '2025') {
          // One call on an SSE stream; the answer went back as its own POST (202).
          expect(calls.map((s) => s.contentType)).toEqual(['text/event-stream']);
          const answer = seen.slice(before).find((s) => s.method === 'response');
          await vi.waitFor(() => expect(answer?.status).toBe(202));
        } else {
          // The first call is answered input_required (sealed with Web Crypto), the retry gets the result.
          expect(calls.map((s) => s.contentType)).toEqual(['application/json', 'application/json']);
        }
      });

      it('answers a missing resource with -32602 and data.uri', async () => {
        await expect(client.readResource({ uri: 'test://no-such-resource' })).rejects.toMatchObject({ code: -32602, data: { uri: 'test://no-such-resource' } });
      });

      if (mode.era === '2025') {
        it('delivers the result after ctx.closeStream() on the resuming GET (Last-Event-ID)', async () => {
          const before = gets.length;
          const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
          expect(textOf(result)).toMatch(/^Reconnection test completed successfully/);
          expect(gets.slice(before)).toContain(200); // the result came on a resumed stream
        });
      }
    });

    describe(`${mode.label}: the math example`, () => {
      let client: AnyClient;
      const { fetchImpl } = recordingFetch();
      beforeAll(async () => {
        ({ client } = await mode.connect('/math', fetchImpl as typeof fetch));
      });
      afterAll(async () => client?.close());

      it('lists and calls its tools, a tool error included', async () => {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['add', 'subtract', 'multiply', 'divide']);
        const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
        expect(sum).toMatchObject({ structuredContent: { result: 42 } });
        const zero = await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
        expect(zero.isError).toBe(true);
        expect(textOf(zero)).toMatch(/Cannot divide by zero/);
      });

      it('reads a resource and answers a missing one with -32602', async () => {
        expect((await client.readResource({ uri: 'math://constants/pi' })).contents[0]).toMatchObject({ text: String(Math.PI) });
        await expect(client.readResource({ uri: 'math://tables/0' })).rejects.toMatchObject({ code: -32602, data: { uri: 'math://tables/0' } });
      });
    });
  }

  describe('minimcp/auth: a JWT-protected call (the runtime verifies ES256 with its own Web Crypto)', () => {
    const token = async (scope: string, aud = RUNTIME_RESOURCE) =>
      new SignJWT({ iss: RUNTIME_ISSUER, sub: 'rt-user', aud, scope, client_id: 'rt' })
        .setProtectedHeader({ alg: 'ES256', kid: PRIVATE_JWK.kid, typ: 'at+jwt' })
        .setIssuedAt().setExpirationTime('5m')
        .sign(await importJWK(PRIVATE_JWK, 'ES256'));
    const call = (authorization: string | undefined) =>
      fetch(`${BASE}/auth`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0', id: 1, method: 'tools/call',
          params: { name: 'add', arguments: { a: 2, b: 3 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
        }),
      });

    it('serves a valid token (twice: the second from the cache), refuses a missing, foreign or under-scoped one', async () => {
      const good = `Bearer ${await token('mcp:tools')}`;
      for (let i = 0; i < 2; i++) {
        const served = await call(good);
        expect(served.status).toBe(200);
        expect((await served.json()).result.structuredContent).toEqual({ result: 5 });
      }
      const missing = await call(undefined);
      expect([missing.status, missing.headers.get('www-authenticate')]).toEqual([401, expect.stringContaining('resource_metadata="https://mcp.runtime.test/.well-known/oauth-protected-resource/auth"')]);
      expect((await call(`Bearer ${await token('mcp:tools', 'https://elsewhere.test/mcp')}`)).status).toBe(401);
      const narrow = await call(`Bearer ${await token('other')}`);
      expect([narrow.status, narrow.headers.get('www-authenticate')]).toEqual([403, expect.stringContaining('error="insufficient_scope"')]);
    });
  });

  describe('the over-limit body', () => {
    // 5 MB against the 4 MiB default: the client must read the 413, not a reset connection.
    it('a client uploading 5 MB gets its 413 every time (20 tries)', async () => {
      const body = new Uint8Array(5 * 1024 * 1024).fill(0x61);
      const outcomes: (number | string)[] = [];
      for (let i = 0; i < 20; i++) {
        try {
          const response = await fetch(`${BASE}/math`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
          await response.arrayBuffer();
          outcomes.push(response.status);
        } catch (error) {
          outcomes.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
        }
      }
      console.info(`[measure] ${RUNTIME} over-limit upload: ${outcomes.filter((o) => o === 413).length}/20 answered 413`);
      expect(outcomes.filter((o) => o !== 413)).toEqual([]);
    });
  });

  describe('the probe: disconnects and getContext()', () => {
    const post = (body: object, signal?: AbortSignal, accept = 'application/json, text/event-stream') =>
      fetch(`${BASE}/probe`, {
        method: 'POST',
        signal,
        headers: {
          'content-type': 'application/json',
          accept,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify(body),
      });
    const call = (name: string, args: object = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const observed = async (label: string) => JSON.parse(textOf((await (await post(call('observed', { label }), undefined, 'application/json')).json()).result));

    async function disconnect(label: string, stream: boolean): Promise<{ started: boolean; cancelled: boolean }> {
      const abort = new AbortController();
      const pending = post(call('wait_for_cancel', { label, stream }), abort.signal, stream ? 'application/json, text/event-stream' : 'application/json');
      if (stream) {
        const response = await pending;
        expect(response.headers.get('content-type')).toBe('text/event-stream');
        await response.body!.getReader().read(); // the stream is open and the handler is waiting
      } else {
        for (let i = 0; i < 100 && !(await observed(label)).started; i++) await new Promise((r) => setTimeout(r, 20));
      }
      abort.abort();
      await pending.catch(() => {});
      for (let i = 0; i < 100; i++) {
        const seen = await observed(label);
        if (seen.cancelled) return seen;
        await new Promise((r) => setTimeout(r, 20));
      }
      return observed(label);
    }

    it('a client that disconnects from an SSE response cancels the handler (ctx.signal)', async () => {
      expect(await disconnect(`sse-${Date.now()}`, true)).toEqual({ started: true, cancelled: true });
    });

    // workerd tells a worker about a disconnect only when writing to the response fails (then it
    // cancels the stream and aborts request.signal); a request still computing its JSON answer
    // writes nothing, so there it runs to its end. docs/http.md says so.
    it.skipIf(IS_WORKERD)('a client that disconnects before a JSON answer cancels the handler (ctx.signal)', async () => {
      expect(await disconnect(`json-${Date.now()}`, false)).toEqual({ started: true, cancelled: true });
    });

    it(IS_WORKERD ? 'getContext() names the missing compatibility flag (no AsyncLocalStorage without nodejs_als)' : 'getContext() finds the request inside a handler', async () => {
      const text = textOf((await (await post(call('context_method'), undefined, 'application/json')).json()).result);
      if (IS_WORKERD) expect(text).toMatch(/^error: getContext\(\) needs AsyncLocalStorage.*nodejs_als/);
      else expect(text).toBe('tools/call');
    });
  });
});
