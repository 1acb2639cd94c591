/**
 * Issue 36, bounds: a proxied request holds its caller's share of the concurrency gate until the
 * upstream answers (one principal cannot occupy the upstream beyond it), and an upstream answer over
 * `maxMessageBytes` fails its call with -32603 instead of being held, the stream going on.
 */
import { afterEach, expect, it } from 'vitest';
import type { Proxied } from '../../src/gateway/index.js';
import { MiniMCP, type MiniMCPOptions } from '../../src/index.js';

const FIXTURE = ['--import', 'tsx', new URL('./servers/pid-stdio.ts', import.meta.url).pathname];
let proxied: Proxied | undefined;
afterEach(async () => {
  await proxied?.close();
  proxied = undefined;
});

async function gateway(options: Partial<MiniMCPOptions>, maxMessageBytes?: number) {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {}, onDebug: () => {}, ...options });
  proxied = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], log: () => {}, ...(maxMessageBytes !== undefined && { maxMessageBytes }) });
  let id = 0;
  return (principal: string, name: string, args: object = {}) =>
    mcp.handle({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }, { principal }) as Promise<{ result?: { content: { text: string }[] }; error?: { code: number; message: string } }>;
}

it("an upstream request holds the caller's concurrency share: the same principal waits, another goes", async () => {
  const call = await gateway({ maxConcurrency: 4, maxConcurrencyPerPrincipal: 1, queueTimeoutMs: 300 });
  void call('alice', 'hang');
  await new Promise((r) => setTimeout(r, 100));
  expect((await call('bob', 'pid')).result?.content[0]?.text).toMatch(/^\d+$/);
  expect((await call('alice', 'pid')).error?.code).toBe(-32603);
}, 30_000);

it('an upstream answer over maxMessageBytes is -32603 naming the bound; the next call is answered', async () => {
  const call = await gateway({}, 2_000);
  expect((await call('alice', 'big', { size: 100 })).result?.content[0]?.text).toHaveLength(100);
  expect(await call('alice', 'big', { size: 10_000 })).toMatchObject({ error: { code: -32603, message: expect.stringContaining('more than 2000 bytes') } });
  expect((await call('alice', 'pid')).result?.content[0]?.text).toMatch(/^\d+$/);
}, 30_000);

it('an upstream that cannot start: mcp.proxy rejects with a clear message, within the start bound, and registers nothing', async () => {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0' });
  await expect(mcp.proxy({ stdio: 'no-such-command-for-the-gateway-test', log: () => {} })).rejects.toThrow('Upstream upstream stopped');
  const started = Date.now();
  await expect(mcp.proxy({ stdio: [process.execPath, '-e', 'setTimeout(() => {}, 60000)'], startTimeoutMs: 500, log: () => {} })).rejects.toThrow('did not start within 500 ms');
  expect(Date.now() - started).toBeLessThan(5_000);
  await expect(mcp.proxy('remote', { url: 'http://127.0.0.1:9/mcp', log: () => {} })).rejects.toThrow('could not be reached');
  expect(mcp.tools.list()).toEqual([]);
}, 30_000);

it("an upstream tool named like one of the server's own is skipped (reported), never replacing it", async () => {
  const errors: string[] = [];
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: (error) => void errors.push(String((error as Error).message)) });
  mcp.tool('pid', {}, () => 'the local pid tool');
  proxied = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], log: () => {} });
  const reply = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pid', arguments: {} } })) as { result: { content: { text: string }[] } };
  expect(reply.result.content[0]?.text).toBe('the local pid tool');
  expect(mcp.tools.list().map((t) => t.name)).toContain('recall');
  expect(errors.some((e) => e.includes('an entry of tools was skipped') && e.includes('"pid" is already registered'))).toBe(true);
}, 30_000);
