/**
 * Issue 36: a remote upstream's list changes reach the gateway on the upstream's own stream (2025:
 * the session's GET stream; 2026: `subscriptions/listen`), and the gateway's lists follow.
 */
import { afterAll, expect, it } from 'vitest';
import type { HttpUpstream, Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

for (const era of ['handshake', 'stateless'] as const) {
  it(`${era}: a tool added upstream appears in the gateway's tools/list`, async () => {
    const upstream = new MiniMCP({ name: 'upstream', version: '1.0.0' });
    upstream.tool('first', {}, () => 'first');
    const running: RunningServer = await serve(upstream, { port: 0 });
    closers.push(() => running.close());
    const gateway = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
    const proxied: Proxied = await gateway.proxy({ url: running.url, era, log: () => {} });
    closers.push(() => proxied.close());
    expect((proxied.upstream as HttpUpstream).era).toBe(era);
    const names = () => gateway.tools.list().map((t) => t.name);
    expect(names()).toEqual(['first']);
    await new Promise((r) => setTimeout(r, 300)); // the stream is open
    upstream.tool('second', {}, () => 'second');
    await expect.poll(names, { timeout: 10_000 }).toEqual(['first', 'second']);
  }, 30_000);
}
