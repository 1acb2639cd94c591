/**
 * Reads a `text/event-stream` body (the WHATWG event-stream format) into the data of each event,
 * with a byte bound per event: an event over it ends the read with an error instead of a growing buffer.
 */
export class EventTooLarge extends Error {}

/** One event: its data (undefined when it has none, e.g. a priming event) and its id, if any. */
export interface StreamEvent {
  data: string | undefined;
  id: string | undefined;
}

function eventOf(block: string): StreamEvent {
  const data: string[] = [];
  let id: string | undefined;
  for (const line of block.split(/\r\n|\r|\n/)) {
    const field = line.startsWith('data') ? 'data' : line.startsWith('id') ? 'id' : undefined;
    if (field === undefined) continue;
    const rest = line.slice(field.length);
    if (rest !== '' && !rest.startsWith(':')) continue;
    const value = rest.slice(rest.startsWith(': ') ? 2 : 1);
    if (field === 'data') data.push(value);
    else id = value;
  }
  return { data: data.length === 0 ? undefined : data.join('\n'), id };
}

/** The data of each event (events without data skipped). */
export async function* eventData(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  for await (const event of events(body, maxBytes)) if (event.data !== undefined) yield event.data;
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/;

export async function* events(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (let match = BOUNDARY.exec(buffer); match !== null; match = BOUNDARY.exec(buffer)) {
        const block = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (block.trim() !== '') yield eventOf(block);
      }
      if (buffer.length > maxBytes) throw new EventTooLarge(`an event over ${maxBytes} bytes`);
      if (done) break;
    }
    if (buffer.trim() !== '') yield eventOf(buffer);
  } finally {
    reader.releaseLock();
    body.cancel().catch(() => {});
  }
}
