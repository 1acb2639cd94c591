/**
 * Resource-template matching with hostile URIs: 100k-character URIs built to make a backtracking matcher
 * quadratic or worse must be matched (or refused) in linear time, through resources/read and the
 * matcher itself.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { parseUriTemplate } from '../../src/primitives/uri-template.js';

const TEMPLATES = [
  'test://template/{id}/data',
  'file:///{+path}',
  'x://{a}/{b}/{c}{.ext}{?q,r}{&s}{#frag}',
  'api://{tenant}.example.com{/segments*}{?query*}',
  'y://{a}{b}{c}{d}{e}',
  'z://{+a}{+b}{+c}x',
  'w://{x:3}/{x}',
  'v://{;p,q,r}{.s,t}',
];
const N = 100_000;
const HOSTILE: string[] = [
  `test://template/${'a'.repeat(N)}/dat`,
  `test://template/${'a/'.repeat(N / 2)}data`,
  `file:///${'a/'.repeat(N / 2)}`,
  `x://${'a/'.repeat(N / 2)}`,
  `x://a/b/c.e?${'q=1&'.repeat(N / 4)}`,
  `x://a/b/c${'.e'.repeat(N / 2)}`,
  `z://${'a'.repeat(N)}`,
  `z://${'x'.repeat(N)}`,
  `z://${'ax'.repeat(N / 2)}y`,
  `y://${'a'.repeat(N)}`,
  `api://${'a.'.repeat(N / 2)}example.com/`,
  `api://t.example.com${'/s'.repeat(N / 2)}?${'k=v&'.repeat(N / 8)}`,
  `w://abc/${'abc'.repeat(N / 3)}`,
  `v://;p=${'1;'.repeat(N / 2)}`,
  `test://template/${'%'.repeat(N)}/data`,
  `test://template/${'%41'.repeat(N / 3)}/data`,
  `test://template/${'%E2%82'.repeat(N / 6)}/data`,
  `x://${'{'.repeat(N)}`,
  `TEST://TEMPLATE/${'A'.repeat(N)}/DATA`,
  `${'a:'.repeat(N / 2)}`,
];

describe('template matching with hostile URIs', () => {
  it('the matcher stays fast on 100k characters: every template x every hostile URI (generous bound: shared CPUs)', () => {
    const templates = TEMPLATES.map(parseUriTemplate);
    let worst = 0;
    let worstCase = '';
    for (const t of templates) {
      for (const uri of HOSTILE) {
        const t0 = performance.now();
        t.match(uri);
        const ms = performance.now() - t0;
        if (ms > worst) [worst, worstCase] = [ms, `${t.template} on ${uri.slice(0, 30)}…`];
      }
    }
    console.info(`[measure] URI templates: ${TEMPLATES.length} x ${HOSTILE.length} matches of 100k-char URIs, worst ${worst.toFixed(1)} ms (${worstCase})`);
    expect(worst).toBeLessThan(1_000);
  });

  it('cost grows linearly: 10x the URI takes about 10x the time, not 100x', () => {
    const t = parseUriTemplate('z://{+a}{+b}{+c}x');
    const time = (n: number) => {
      const uri = `z://${'a'.repeat(n)}`;
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        t.match(uri);
        best = Math.min(best, performance.now() - t0);
      }
      return best;
    };
    time(1_000);
    const small = time(20_000);
    const large = time(200_000);
    console.info(`[measure] z://{+a}{+b}{+c}x: 20k chars ${small.toFixed(2)} ms, 200k chars ${large.toFixed(2)} ms`);
    expect(large).toBeLessThan(Math.max(small * 40, 20));
  });

  it('resources/read and completion/complete with the hostile URIs answer quickly with a contract error or a result', async () => {
    const mcp = new MiniMCP({ name: 'tpl', version: '1', onError: () => {} });
    for (const template of TEMPLATES) {
      mcp.resourceTemplate(template, { complete: { id: () => ['1'] } }, (uri, vars) => ({ uri: uri.length, vars: Object.keys(vars) }));
    }
    let worst = 0;
    for (const uri of HOSTILE) {
      const t0 = performance.now();
      const reply = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } })) as any;
      const completion = (await mcp.handle({ jsonrpc: '2.0', id: 2, method: 'completion/complete', params: { ref: { type: 'ref/resource', uri }, argument: { name: 'id', value: uri } } })) as any;
      worst = Math.max(worst, performance.now() - t0);
      expect(reply.result ?? reply.error).toBeDefined();
      if (reply.error) expect(reply.error).toMatchObject({ code: -32602, data: { uri } });
      expect(completion.error).toMatchObject({ code: -32602 });
    }
    console.info(`[measure] resources/read + completion/complete with 100k-char hostile URIs: worst ${worst.toFixed(1)} ms per pair`);
    expect(worst).toBeLessThan(1_000);
  });

  // BUG-9 (src/primitives/uri-template.ts findRuns, src/primitives/resources.ts read): matching is
  // linear but costly: one Int32Array of the URI's length per template expression, and every template
  // is tried for a URI that matches none. A 4 MiB URI (the default body limit allows it) against a
  // 7-expression template takes ~1.2 s of synchronous CPU and allocates ~128 MiB (16 expressions: ~2.4 s,
  // ~288 MiB); the event loop, and so every other request, is blocked meanwhile. Expected: a cap on the
  // URI length before matching (e.g. 64 KiB, -32602 "URI too long"; browsers and proxies cap URLs at
  // 2-64 KiB), and/or reuse of the DP buffers.
  it('BUG-9: resources/read with a 4 MiB URI is refused or answered within 250 ms', async () => {
    const mcp = new MiniMCP({ name: 'tpl', version: '1', onError: () => {} });
    mcp.resourceTemplate('x://{a}/{b}/{c}{.ext}{?q,r}{&s}{#frag}', {}, () => 'x');
    const uri = `x://${'a/'.repeat(2 * 1024 * 1024)}`;
    const t0 = performance.now();
    await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } });
    const ms = performance.now() - t0;
    console.info(`[measure] resources/read of a 4 MiB URI against a 7-expression template: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(250);
  });
});
