/** Keep-alive comments go only on idle streams: a tick after events were written sends none. */
import { describe, expect, it } from 'vitest';
import { EventStore } from '../../src/index.js';
import type { Exchange } from '../../src/transports/http/exchange.js';
import { resolveSettings } from '../../src/transports/http/options.js';
import { PostStream } from '../../src/transports/http/sse.js';

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
    const stream = new PostStream(ex, resolveSettings({ keepAliveMs: 3_600_000 }, new EventStore()), false, undefined, { streamOwner: '', streamPrincipal: '' });
    const comments = () => written.filter((w) => w === ': keepalive\n\n').length;
    stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    stream.keepAlive(); // busy since the last tick
    expect(comments()).toBe(0);
    stream.keepAlive(); // idle for a whole tick
    expect(comments()).toBe(1);
    stream.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 2 } });
    stream.keepAlive();
    stream.keepAlive();
    stream.keepAlive();
    expect(comments()).toBe(3);
    stream.finish({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
