/** Keep-alive comments go only on idle streams: a tick after events were written sends none. */
import { describe, expect, it } from 'vitest';
import { EventStore } from '../../src/index.js';
import type { Exchange } from '../../src/transports/http/exchange.js';
import { resolveSettings } from '../../src/transports/http/options.js';
import { IdleKeepAlive, PostStream } from '../../src/transports/http/sse.js';

/** An exchange that records what is written (a 2026 stream: no session, no ids). */
function recorder() {
  const written: string[] = [];
  const ex = {
    method: 'POST',
    signal: new AbortController().signal,
    get: () => undefined,
    openStream: () => {},
    write: (text: string) => void written.push(text),
    end: () => {},
  } as unknown as Exchange<unknown>;
  return { ex, written };
}

describe('SSE keep-alive', () => {
  it('a tick with events since the last one writes no comment; an idle tick writes one', () => {
    const { ex, written } = recorder();
    const idle = new IdleKeepAlive(ex);
    const comments = () => written.filter((w) => w === ': keepalive\n\n').length;
    idle.sent();
    idle.tick(); // busy since the last tick
    expect(comments()).toBe(0);
    idle.tick(); // idle for a whole tick
    expect(comments()).toBe(1);
    idle.sent();
    idle.tick();
    idle.tick();
    idle.tick();
    expect(comments()).toBe(3);
  });

  it('a POST\'s stream marks each event it writes', async () => {
    const { ex, written } = recorder();
    const stream = new PostStream(ex, resolveSettings({ keepAliveMs: 50 }, new EventStore()), false, undefined, { streamOwner: '', streamPrincipal: '' });
    const comments = () => written.filter((w) => w === ': keepalive\n\n').length;
    // An event every 5 ms for 300 ms: every 50 ms tick finds one since the last (barring a 50 ms
    // stall). Without the mark the ticks would write ~6 comments meanwhile.
    for (let i = 0; i < 60; i++) {
      stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: i } });
      await new Promise((r) => setTimeout(r, 5));
    }
    const whileBusy = comments();
    await new Promise((r) => setTimeout(r, 200)); // idle: the first tick is spent, the next ones write
    const afterIdle = comments();
    stream.finish({ jsonrpc: '2.0', id: 1, result: {} });
    expect(whileBusy).toBeLessThanOrEqual(2);
    expect(afterIdle - whileBusy).toBeGreaterThanOrEqual(1);
  });
});
