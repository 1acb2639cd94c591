/**
 * Issue 36, isolation: a shared stdio child serves every principal (what one caller leaves in it,
 * another reads); `perPrincipal` gives each principal its own child, bounded in count (a principal
 * beyond the bound stops the least recently used idle child, or gets -32603 when all are busy) and
 * stopped when idle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Proxied } from '../../src/gateway/index.js';
import type { PerPrincipalUpstream } from '../../src/gateway/per-principal.js';
import { MiniMCP } from '../../src/index.js';

const FIXTURE = ['--import', 'tsx', new URL('./servers/pid-stdio.ts', import.meta.url).pathname];
let proxied: Proxied | undefined;
afterEach(async () => {
  await proxied?.close();
  proxied = undefined;
});

const text = (reply: unknown): string => ((reply as { result: { content: { text: string }[] } }).result.content[0] as { text: string }).text;

async function gateway(perPrincipal?: boolean | { max?: number; idleMs?: number }): Promise<(principal: string, name: string, args?: object) => Promise<unknown>> {
  const mcp = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {}, onDebug: () => {} });
  proxied = await mcp.proxy({ stdio: [process.execPath, ...FIXTURE], perPrincipal, log: () => {} });
  let id = 0;
  return (principal, name, args = {}) => mcp.handle({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args } }, { principal });
}

describe('isolation', () => {
  it('a shared child: one principal reads what another left', async () => {
    const call = await gateway();
    await call('alice', 'remember', { value: 'alice-secret' });
    expect(text(await call('bob', 'recall'))).toBe('alice-secret');
  }, 30_000);

  it('perPrincipal: each principal has its own child, and keeps it', async () => {
    const call = await gateway(true);
    await call('alice', 'remember', { value: 'alice-secret' });
    expect(text(await call('bob', 'recall'))).toBe('(nothing)');
    expect(text(await call('alice', 'recall'))).toBe('alice-secret');
    expect(text(await call('alice', 'pid'))).not.toBe(text(await call('bob', 'pid')));
  }, 30_000);

  it('perPrincipal.max: an idle child is stopped for a new principal; all busy is -32603 naming the bound', async () => {
    const call = await gateway({ max: 1 });
    const alicePid = text(await call('alice', 'pid'));
    expect(text(await call('bob', 'pid'))).not.toBe(alicePid);
    expect((proxied!.upstream as PerPrincipalUpstream).running).toBe(1);
    void call('bob', 'hang');
    await new Promise((r) => setTimeout(r, 200));
    expect(await call('carol', 'pid')).toMatchObject({ error: { code: -32603, message: expect.stringContaining('perPrincipal.max') } });
  }, 30_000);

  it('perPrincipal.idleMs: an idle child is stopped', async () => {
    const call = await gateway({ idleMs: 200 });
    await call('alice', 'pid');
    expect((proxied!.upstream as PerPrincipalUpstream).running).toBe(1);
    await expect.poll(() => (proxied!.upstream as PerPrincipalUpstream).running, { timeout: 5_000 }).toBe(0);
  }, 30_000);
});
