/**
 * Checks answers to the benchmark's tools/call: the right id, a result (not an error, not isError)
 * whose first text block is the expected text. Each check returns undefined when right, else what was wrong.
 */

/** One JSON-RPC reply object. */
export function checkReply(reply, id, expectedText) {
  if (!reply || reply.id !== id) return `no answer with id ${id}`;
  if (reply.error) return `error ${reply.error.code}: ${reply.error.message}`;
  const text = reply.result?.content?.[0]?.text;
  if (reply.result?.isError || text !== expectedText) return `wrong result: ${JSON.stringify(reply.result).slice(0, 120)}`;
  return undefined;
}

/** An HTTP body: one JSON-RPC message (JSON) or an SSE stream of them (`sse` true). */
export function checkHttpAnswer(body, sse, id, expectedText, needProgress) {
  let messages;
  try {
    messages = sse ? sseMessages(body) : [JSON.parse(body)];
  } catch {
    return `unparsable ${sse ? 'SSE' : 'JSON'} body: ${body.slice(0, 120)}`;
  }
  const reply = messages.find((m) => m && m.id === id && ('result' in m || 'error' in m));
  const wrong = checkReply(reply, id, expectedText);
  if (wrong) return reply ? wrong : `${wrong}: ${body.slice(0, 120)}`;
  if (needProgress && !messages.some((m) => m?.method === 'notifications/progress')) return 'no progress notification before the result';
  return undefined;
}

/** The JSON-RPC messages in the `data:` fields of an SSE body. */
export function sseMessages(body) {
  const out = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line[5] === ' ' ? 6 : 5));
    // An event with empty data (the SEP-1699 priming event: just an id and retry) carries no message.
    const text = data.join('\n');
    if (text !== '') out.push(JSON.parse(text));
  }
  return out;
}

/** The tools/call request line of the benchmark (a progressToken asks for the SSE path). */
export function callBody(id, tool, progress) {
  const meta = progress ? `,"_meta":{"progressToken":${id}}` : '';
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{}${meta}}}`;
}
