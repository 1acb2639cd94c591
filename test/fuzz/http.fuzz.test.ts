/**
 * Property-based fuzzing of the Streamable HTTP transport with the conformance fixture: mutated bodies
 * (invalid UTF-8, truncation, over the size limit) and header choices whose gate outcome is known
 * (Host/Origin, method, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name,
 * Mcp-Session-Id). Bulk runs go through the in-process fetch handler; a smaller run uses real sockets
 * against `serve()`. Every answer is checked against errors.md §3 (status x code), every SSE stream is
 * read to the end, and a valid tools/call must still succeed after every case.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createConformanceFixture } from '../../examples/conformance/fixture.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { guardFuzzFile, SIMPLE_TEXT } from './support/harness.js';
import { buildRequest, httpCaseArb, runExchange, type FetchLike } from './support/http-case.js';
import { knownBugOf, pollution, runs, seed, short, Tally } from './support/oracle.js';

const guard = guardFuzzFile();
const running: RunningServer[] = [];
afterAll(async () => {
  for (const s of running.splice(0)) await s.close();
});

const MAX_BODY = 256 * 1024;
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const b64url = (s: string) => Buffer.from(s).toString('base64url');

async function sessionsFor(fetchLike: FetchLike, url: string): Promise<string[]> {
  const init = async (capabilities: object) => {
    const r = await fetchLike(url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: enc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'fuzz', version: '1' } } }),
    });
    await r.text();
    return r.headers.get('mcp-session-id')!;
  };
  return [
    await init({}),
    await init({ elicitation: {}, sampling: {}, roots: {} }),
    'garbage',
    `AAAAAAAAAAAAAAAAAAAAAA.${b64url('{"v":"2025-11-25","c":{"__proto__":{"sampling":{}}},"i":["a","b"]}')}`,
    'x'.repeat(3000),
    'a.!!!',
  ];
}

async function probe(fetchLike: FetchLike, url: string, n: number): Promise<string[]> {
  const r = await fetchLike(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    body: enc({ jsonrpc: '2.0', id: `probe-${n}`, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } }),
  });
  const body = (await r.json().catch(() => undefined)) as Record<string, any> | undefined;
  return r.status === 200 && body?.result?.content?.[0]?.text === SIMPLE_TEXT ? [] : [`the probe after the case got ${r.status} ${short(body)}`];
}

async function fuzzHttp(name: string, numRuns: number, fetchLike: FetchLike, url: string) {
  const sessions = await sessionsFor(fetchLike, url);
  const tally = new Tally(name);
  const statuses = new Map<number, number>();
  let streams = 0;
  let serverRequests = 0;
  let resumed = 0;
  const started = performance.now();
  let n = 0;
  await fc.assert(
    fc.asyncProperty(httpCaseArb, async (h) => {
      const built = buildRequest(h, sessions, MAX_BODY);
      tally.cases++;
      const result = await runExchange(fetchLike, url, built);
      statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
      if (result.streamed) streams++;
      serverRequests += result.serverRequests;
      resumed += result.resumed;
      if (result.reply === undefined) tally.silent++;
      else tally.replies++;
      const error = (result.reply as { error?: { code?: unknown } } | undefined)?.error;
      if (error) tally.code(error.code);
      let problems = result.problems;
      if (problems.length && built.gate === undefined) {
        const bug = knownBugOf(built.message);
        if (bug) {
          tally.bug(bug);
          problems = [];
        }
      }
      problems.push(...(await probe(fetchLike, url, n++)));
      if (guard.errors.length) problems.push(`unhandled: ${guard.errors.map(String).join('; ')}`);
      problems.push(...pollution());
      if (problems.length) {
        throw new Error(`${problems.join('\n')}\n${built.method} ${JSON.stringify(built.headers)}\nbody: ${built.text.slice(0, 400) || short(built.body)}`);
      }
    }),
    { numRuns, seed: seed(), endOnFailure: true },
  );
  tally.print(performance.now() - started);
  const byStatus = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}:${c}`).join(' ');
  console.info(`[fuzz] ${name}: statuses {${byStatus}}, ${streams} SSE streams (${resumed} resumed with Last-Event-ID), ${serverRequests} server requests answered, ${guard.serverLogLines()} server log lines so far`);
  return tally;
}

describe('HTTP fuzz', () => {
  it('fetch handler (in process): status, body and headers follow errors.md §3 for every input', async () => {
    const handler = createFetchHandler(createConformanceFixture({ stepDelayMs: 1 }), { maxBodyBytes: MAX_BODY, onError: () => {} });
    const fetchLike: FetchLike = (url, init) => handler(new Request(url, init));
    const tally = await fuzzHttp('http(fetch handler)', runs(700, 1 / 2), fetchLike, 'http://127.0.0.1:3000/mcp');
    expect(tally.hangs).toBe(0);
  });

  it('node serve() over real sockets', async () => {
    const server = await serve(createConformanceFixture({ stepDelayMs: 1 }), { port: 0, maxBodyBytes: MAX_BODY, onError: () => {} });
    running.push(server);
    const tally = await fuzzHttp('http(node sockets)', runs(200, 1 / 5), (url, init) => fetch(url, init), server.url);
    expect(tally.hangs).toBe(0);
  });
});
