/**
 * Issue 26 item 8: the whole request of each era, as docs/http.md shows it and `npm start` prints it,
 * works when run as printed (bash and curl against the math example), and the docs' 2026 elicitation
 * round trip (input_required, then inputResponses with the requestState) runs the handler twice.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { legacyCurl, modernCurl } from '../../examples/math/curl.js';
import { MiniMCP } from '../../src/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

it('docs/http.md shows the same curl lines npm start prints, for http://127.0.0.1:3000/mcp', () => {
  const doc = readFileSync(`${root}docs/http.md`, 'utf8');
  for (const line of [...legacyCurl('http://127.0.0.1:3000/mcp'), ...modernCurl('http://127.0.0.1:3000/mcp')]) expect(doc).toContain(`\n${line}\n`);
});

it('npm start prints a 2025 and a 2026 request; each, run as printed, calls add', async () => {
  const server = spawn(process.execPath, ['--import', 'tsx', 'examples/math/http.ts'], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/stateless\):\n {2}curl .*\n/.test(out)) resolve();
      });
      server.once('exit', () => reject(new Error(`the server exited:\n${out}`)));
    });
    const lines = out.split('\n').filter((line) => line.startsWith('  ')).map((line) => line.slice(2));
    expect(lines).toHaveLength(4);
    const legacy = execFileSync('bash', ['-c', lines.slice(0, 3).join('\n')], { encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(legacy)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"result":5}' }], structuredContent: { result: 5 } } });
    const modern = execFileSync('bash', ['-c', lines[3]!], { encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(modern)).toEqual({
      jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"result":5}' }], structuredContent: { result: 5 }, resultType: 'complete' },
    });
  } finally {
    server.kill('SIGTERM');
  }
}, 60_000);

it("the guide's 2026 elicitation round trip: input_required, then inputResponses; the handler runs again from the top", async () => {
  const mcp = new MiniMCP({ name: 'booking', version: '1.0.0' });
  let runs = 0;
  mcp.tool('book', {}, async (_args, ctx) => {
    runs++;
    const answer = await ctx.elicit({ message: 'For which date?', requestedSchema: { type: 'object', properties: { date: { type: 'string' } } } });
    return answer.action === 'accept' ? `Booked on ${String(answer.content?.date)}` : 'Not booked';
  });
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const first = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book', arguments: {}, _meta } })) as {
    result: { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
  };
  expect(first.result.resultType).toBe('input_required');
  expect(first.result.inputRequests).toEqual({ 'input-1': { method: 'elicitation/create', params: expect.objectContaining({ message: 'For which date?' }) } });
  const inputResponses = { 'input-1': { action: 'accept', content: { date: '2026-12-01' } } };
  const second = await mcp.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'book', arguments: {}, _meta, requestState: first.result.requestState, inputResponses } });
  expect(second).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Booked on 2026-12-01' }], resultType: 'complete' } });
  expect(runs).toBe(2);
});
