/**
 * What a replay store keeps of an SSE event larger than its per-stream bound: never the event itself.
 * A reply (a JSON-RPC response) becomes a short error reply with the same event id and request id, so
 * a client that resumes still gets an answer for its request; anything else (a notification, a server
 * request) is kept as an empty frame, which holds its number and sends nothing.
 */

/** The frame kept in place of `frame` (longer than `max` characters): a short error reply, or ''. */
export function shrinkFrame(frame: string, max: number): string {
  const at = frame.indexOf('\ndata: ');
  const end = frame.lastIndexOf('\n\n');
  if (at < 0 || end <= at) return '';
  let message: unknown;
  try {
    message = JSON.parse(frame.slice(at + 7, end));
  } catch {
    return '';
  }
  if (typeof message !== 'object' || message === null || !('id' in message) || !('result' in message || 'error' in message)) return '';
  const error = { code: -32603, message: `The reply was larger than the ${max} characters a resumable stream keeps (maxChars): it was not kept`, data: { bound: 'maxChars' } };
  // A copy of the event's id line: a slice would keep the whole large frame alive (V8 sliced strings).
  const head = JSON.parse(JSON.stringify(frame.slice(0, at))) as string;
  const substitute = `${head}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: (message as { id: unknown }).id, error })}\n\n`;
  return substitute.length <= max ? substitute : '';
}
