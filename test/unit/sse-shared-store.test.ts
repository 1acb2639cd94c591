/**
 * With a replay store shared over the network (Redis), a 2025 response shows the client no event id
 * before the store has the stream: a client that reads the first event, drops the stream and resumes
 * at once on another instance would otherwise get 404 there. Here the store's acknowledgement is in
 * the test's hands, and the fetch handler's Response (resolved when its first bytes may go) shows
 * what the client could have seen.
 */
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/transports/http/fetch-handler.js';
import { EventStore, type ReplayStore, type ReplayWriter } from '../../src/state/index.js';
import { progressCall, progressServer } from '../support/progress-server.js';

/** The in-memory store, except that each stream is acknowledged only when the test says so. */
function slowToAcknowledge() {
  const inner = new EventStore();
  const acknowledge: Array<() => void> = [];
  const store: ReplayStore = {
    open(streamId, owner, nextSeq, principal): ReplayWriter {
      const writer = inner.open(streamId, owner, nextSeq, principal);
      const opened = new Promise<void>((resolve) => acknowledge.push(resolve));
      return { opened, push: (frame) => writer.push(frame), end: (keepMs) => writer.end(keepMs) };
    },
    resume: (lastEventId, owner) => inner.resume(lastEventId, owner),
  };
  return { store, acknowledge };
}

function server(store: ReplayStore) {
  const { mcp, release } = progressServer({ state: { replay: store } });
  return { handler: createFetchHandler(mcp), release };
}

/** Whether `promise` settled within a few turns of the event loop. */
async function settledSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return settled;
}

/** Reads the stream to its end; `onSeen` runs once `text` arrived, with what had arrived then. */
async function readAll(response: Response, text: string, onSeen: (seen: string) => void): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  let called = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    seen += decoder.decode(value, { stream: true });
    if (!called && seen.includes(text)) (called = true), onSeen(seen);
  }
}

describe('a 2025 stream on a shared replay store', () => {
  it('a stream still going: its first bytes wait for the store, then stream (priming event, progress)', async () => {
    const { store, acknowledge } = slowToAcknowledge();
    const { handler, release } = server(store);
    const pending = handler(progressCall('slow'));
    expect(await settledSoon(pending)).toBe(false); // no status line, no event id yet
    expect(acknowledge).toHaveLength(1);
    acknowledge[0]!();
    const response = await pending;
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    let early = '';
    const all = await readAll(response, '"progress":1', (seen) => ((early = seen), release()));
    expect(early).toMatch(/^id: [0-9a-f]{32}-0\n/); // the priming event first
    expect(early).not.toContain('"text":"done"'); // streamed: the progress came before the tool returned
    expect(all).toContain('"text":"done"');
  });

  it('an answer over in its first turn: sent whole once the store has the stream', async () => {
    const { store, acknowledge } = slowToAcknowledge();
    const { handler } = server(store);
    const pending = handler(progressCall('quick'));
    expect(await settledSoon(pending)).toBe(false);
    acknowledge[0]!();
    const body = await (await pending).text();
    expect(body.match(/^id: [0-9a-f]{32}-\d+$/gm)).toHaveLength(3); // priming, progress, reply
    expect(body).toContain('"text":"ok"');
  });

  it('the in-memory store has the stream at once: nothing waits', async () => {
    const { handler } = server(new EventStore());
    expect(await settledSoon(handler(progressCall('quick')))).toBe(true);
  });
});
