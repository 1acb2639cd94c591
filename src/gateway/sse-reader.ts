/**
 * Reads a `text/event-stream` body (the WHATWG event-stream format) into the data of each event,
 * with a byte bound per event: an event over it ends the read with an error instead of a growing buffer.
 */
export class EventTooLarge extends Error {}

function dataOf(block: string): string | undefined {
  const data: string[] = [];
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line === 'data') data.push('');
  }
  return data.length === 0 ? undefined : data.join('\n');
}

const BOUNDARY = /\r\n\r\n|\n\n|\r\r/;

export async function* eventData(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (let match = BOUNDARY.exec(buffer); match !== null; match = BOUNDARY.exec(buffer)) {
        const data = dataOf(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
        if (data !== undefined) yield data;
      }
      if (buffer.length > maxBytes) throw new EventTooLarge(`an event over ${maxBytes} bytes`);
      if (done) break;
    }
    const last = dataOf(buffer);
    if (last !== undefined) yield last;
  } finally {
    reader.releaseLock();
    body.cancel().catch(() => {});
  }
}
