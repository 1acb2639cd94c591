/** Raw HTTP helpers for the state tests: 2025 sessions, SSE reading, over real sockets (fetch). */
export const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
export const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SseEvent { id?: string; data: string }

/** The events of an SSE text (comments and empty data skipped). */
export function events(text: string): SseEvent[] {
  const out: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    const event: SseEvent = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('data: ')) event.data = line.slice(6);
    }
    if (event.data !== '') out.push(event);
  }
  return out;
}
export const messages = (text: string) => events(text).map((e) => JSON.parse(e.data));

/** An SSE body read as it comes: `until()` waits for a condition on the text so far. */
export function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const state = { text: '', done: false };
  return {
    state,
    async until(check: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (!check(state.text)) {
        if (state.done) throw new Error(`stream ended before the condition; got: ${state.text}`);
        const next = await Promise.race([reader.read(), sleep(Math.max(1, deadline - Date.now())).then(() => 'timeout' as const)]);
        if (next === 'timeout') throw new Error(`timed out waiting on the stream; got: ${state.text}`);
        if (next.done) state.done = true;
        else state.text += decoder.decode(next.value, { stream: true });
      }
      return state.text;
    },
    cancel: () => reader.cancel(),
  };
}

export const post = (url: string, body: object, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body), signal });

export const get = (url: string, headers: Record<string, string>, signal?: AbortSignal) =>
  fetch(url, { method: 'GET', headers: { accept: 'text/event-stream', ...LEGACY, ...headers }, signal });

/** A 2025 session over raw HTTP: initialize, then the headers every later request carries. */
export async function initialize(url: string, capabilities: object = {}, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const init = await post(url, {
    jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'state-test', version: '1' } },
  }, extra);
  const session = init.headers.get('mcp-session-id');
  if (!session) throw new Error(`initialize gave no session: ${init.status} ${await init.text()}`);
  await init.text();
  const headers = { ...LEGACY, ...extra, 'mcp-session-id': session };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers).then((r) => r.text());
  return headers;
}

let nextId = 1;
export const request = (method: string, params: object = {}, id: number | string = nextId++) => ({ jsonrpc: '2.0', id, method, params });

/** A JSON-RPC result from a JSON or SSE answer (the last message). */
export async function resultOf(response: Response): Promise<any> {
  const text = await response.text();
  const body = response.headers.get('content-type')?.includes('text/event-stream') ? messages(text).at(-1) : JSON.parse(text);
  if (body?.error) throw new Error(`error ${body.error.code}: ${body.error.message}`);
  return body?.result;
}

/**
 * A fetch for an official client's transport that keeps where each POST whose JSON body `matches`
 * landed: the `x-member` header cluster members put on every response (support/member.ts). Kept as
 * promises, since the response to an answer may come after the result it unblocked.
 */
export function landingRecorder(matches: (body: any) => boolean) {
  const landed: Promise<string>[] = [];
  const recording: typeof fetch = (url, init) => {
    const response = fetch(url, init);
    const body = init?.method === 'POST' && typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    if (body !== undefined && matches(body)) landed.push(response.then((r) => r.headers.get('x-member') ?? 'none'));
    return response;
  };
  return { landed, fetch: recording };
}
