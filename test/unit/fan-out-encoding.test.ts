/** One event to many listen streams: its text is encoded once and each stream splices in its subscription id. */
import { describe, expect, it } from 'vitest';
import { serializeMessage } from '../../src/protocol/jsonrpc.js';
import { taggedNotification, type BusEvent } from '../../src/state/bus.js';

const KEY = 'io.modelcontextprotocol/subscriptionId';

const plain = (event: BusEvent, id: string | number) =>
  event.type === 'resources/updated'
    ? { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri, _meta: { [KEY]: id } } }
    : { jsonrpc: '2.0', method: `notifications/${event.type}`, params: { _meta: { [KEY]: id } } };

describe('taggedNotification', () => {
  const events: BusEvent[] = [
    { type: 'tools/list_changed' },
    { type: 'resources/updated', uri: 'file:///a "quoted" \\ path/\u0000subscription-id\u0000/é' },
    // The id slot's own JSON text inside a URI: the split is no longer two parts, and encoding falls back.
    { type: 'resources/updated', uri: 'x"\\u0000subscription-id\\u0000"y' },
    { type: 'resources/updated', uri: '"\u0000subscription-id\u0000"' },
  ];
  const ids: (string | number)[] = [7, 0, 'L', 'a "quoted" id', '\u2028', 'é'];

  it('writes exactly the text a stringify of the tagged notification gives, for every stream of one event', () => {
    for (const event of events) {
      for (const id of ids) {
        const message = taggedNotification(event, id, JSON.stringify(id));
        expect(serializeMessage(message)).toBe(JSON.stringify(plain(event, id)));
        expect(JSON.parse(serializeMessage(message)!)).toEqual(plain(event, id));
      }
    }
  });

  it('is a plain notification to whoever reads its fields, and a copy is encoded from its fields', () => {
    const event: BusEvent = { type: 'resources/updated', uri: 'mem://x' };
    const message = taggedNotification(event, 'S', '"S"');
    expect(JSON.stringify(message)).toBe(JSON.stringify(plain(event, 'S')));
    expect(Object.keys(message)).toEqual(['jsonrpc', 'method', 'params']);
    const copy = { ...message, params: { ...message.params, extra: 1 } };
    expect(JSON.parse(serializeMessage(copy)!).params.extra).toBe(1);
  });
});
