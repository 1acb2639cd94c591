/** Issue 36: the gateway's small pieces — command lines, namespaces, event streams, restart delays, error mapping. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/gateway/backoff.js';
import { splitCommandLine } from '../../src/gateway/command-line.js';
import { callerError } from '../../src/gateway/errors.js';
import { Naming } from '../../src/gateway/naming.js';
import { EventTooLarge, eventData } from '../../src/gateway/sse-reader.js';
import { UpstreamError, UpstreamUnavailable } from '../../src/gateway/types.js';
import { ProtocolError } from '../../src/protocol/errors.js';

const stream = (...chunks: string[]) => new ReadableStream<Uint8Array>({
  start(controller) {
    for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
    controller.close();
  },
});
const collect = async (body: ReadableStream<Uint8Array>, max = 1_000) => {
  const out: string[] = [];
  for await (const data of eventData(body, max)) out.push(data);
  return out;
};

describe('splitCommandLine', () => {
  it('splits words like a shell: quotes, escapes, no expansion', () => {
    expect(splitCommandLine(`npx -y "@scope/server" 'a b' c\\ d "e \\"f\\"" $HOME ''`)).toEqual(['npx', '-y', '@scope/server', 'a b', 'c d', 'e "f"', '$HOME', '']);
    expect(() => splitCommandLine('node "open')).toThrow(/Unclosed/);
  });
});

describe('Naming', () => {
  it('names and URIs reversibly, and only with a namespace', () => {
    const naming = new Naming('docs');
    expect(naming.name('search')).toBe('docs_search');
    expect(naming.uri('file:///a')).toBe('docs+file:///a');
    expect(naming.originalUri('docs+file:///a')).toBe('file:///a');
    expect(naming.originalUri('other+file:///a')).toBeUndefined();
    expect(naming.contents({ contents: [{ uri: 'file:///a', text: 'x' }] })).toEqual({ contents: [{ uri: 'docs+file:///a', text: 'x' }] });
    expect(new Naming(undefined).uri('file:///a')).toBe('file:///a');
    expect(() => new Naming('no spaces')).toThrow(/Invalid namespace/);
  });
});

describe('eventData', () => {
  it('reads the data of each event, across chunks and line endings, multi-line data joined', async () => {
    expect(await collect(stream('event: message\ndata: {"a"', ':1}\n\n: comment\n\ndata: x\r\ndata: y\r\n\r\nid: 3\ndata: last'))).toEqual(['{"a":1}', 'x\ny', 'last']);
  });
  it('refuses an event over the bound instead of buffering it', async () => {
    await expect(collect(stream(`data: ${'x'.repeat(5_000)}`), 1_000)).rejects.toBeInstanceOf(EventTooLarge);
  });
});

describe('Backoff', () => {
  it('doubles to the maximum while crashes are quick, and starts over after a stable run', () => {
    const backoff = new Backoff(250, 1_000, 30_000);
    expect([backoff.next(10), backoff.next(10), backoff.next(10), backoff.next(10)]).toEqual([250, 500, 1_000, 1_000]);
    expect(backoff.next(60_000)).toBe(250);
  });
});

describe('callerError', () => {
  it('passes codes the contract allows, maps the retired -32002, hides the legacy range, names an unavailable upstream', () => {
    expect(callerError(new UpstreamError(-32602, 'Unknown tool: x', undefined), 'up')).toMatchObject({ code: -32602, message: 'Unknown tool: x' });
    expect(callerError(new UpstreamError(-32002, 'gone', { uri: 'a://b' }), 'up', 'ns+a://b')).toMatchObject({ code: -32602, data: { uri: 'ns+a://b' } });
    expect(callerError(new UpstreamError(-32001, 'odd', undefined), 'up')).toMatchObject({ code: -32603, message: 'Upstream up failed: odd' });
    expect(callerError(new UpstreamError(42, 'app', { x: 1 }), 'up')).toMatchObject({ code: 42, data: { x: 1 } });
    const unavailable = callerError(new UpstreamUnavailable('Upstream up stopped'), 'up');
    expect(unavailable).toBeInstanceOf(ProtocolError);
    expect(unavailable).toMatchObject({ code: -32603, message: 'Upstream up stopped' });
  });
});

describe('the gateway in a bundle of the core', () => {
  it('imports no node: module at the top (mcp.proxy is loaded lazily; a Workers bundle must still load)', () => {
    const dir = new URL('../../src/gateway/', import.meta.url);
    const offenders = readdirSync(dir)
      .filter((file) => /^import (?!type )[^;]*from 'node:/m.test(readFileSync(new URL(file, dir), 'utf8')))
      .filter((file) => file !== 'cli.ts'); // the CLI runs on Node only
    expect(offenders).toEqual([]);
  });
});
