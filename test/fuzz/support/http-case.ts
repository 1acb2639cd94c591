/**
 * One fuzzed HTTP exchange: a mutated body plus a choice of headers whose gate outcome is known from
 * shared/errors.md §3 and docs/http.md (403 > 405 > 415 > 406 > 413 > 400), sent through any
 * fetch-shaped function (the in-process fetch handler, or real sockets to `serve()`), with SSE streams
 * read to the end and server-to-client requests answered on a second POST.
 */
import fc from 'fast-check';
import { byteOpArb, caseArb, mutate, mutateBytes, mutateText, PV, toText, type ByteOp, type Case, type Tree } from './messages.js';
import { checkReply, expectationOf, leaks, parse, short, type Expectation } from './oracle.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** [header value (undefined = absent), the gate status it must cause (undefined = passes)] */
type Variant = readonly [string | undefined, number | undefined];

const CONTENT_TYPES: Variant[] = [
  ['application/json', undefined], ['application/json; charset=utf-8', undefined], ['Application/JSON', undefined],
  ['text/plain', 415], ['', 415], [undefined, 415], ['application/jsonx', 415],
];
const ACCEPTS: Variant[] = [
  ['application/json, text/event-stream', undefined], ['application/json', undefined], ['*/*', undefined], [undefined, undefined],
  ['text/event-stream', 406], ['application/json;q=0, text/event-stream', 406], ['text/html', 406],
];
const ORIGINS: Variant[] = [
  [undefined, undefined], ['http://localhost:3000', undefined], ['https://127.0.0.1', undefined],
  ['http://evil.example', 403], ['null', 403], ['http://localhost.evil.example', 403], ['http://localhost@evil.example', 403],
];
const METHODS: Variant[] = [['POST', undefined], ['GET', 405], ['DELETE', 405], ['PUT', 405], ['PATCH', 405]];
const VERSIONS = ['2025-11-25', '2025-03-26', '2026-07-28', '1999-01-01', 'garbage', '2026-07-28 '];
const NAMES = ['=?base64?!!?=', '=?base64?dGVzdF9zaW1wbGVfdGV4dA==?=', 'other', 'test_simple_text'];

export interface HttpCase {
  c: Case;
  bytes: ByteOp[];
  method: number;
  contentType: number;
  accept: number;
  origin: number;
  /** -1: keep what the seed implies; otherwise an index into VERSIONS (or drop with VERSIONS.length). */
  version: number;
  mcpMethod: number;
  mcpName: number;
  session: number;
}

const pick = (weightOk: number, n: number) => fc.oneof({ weight: weightOk, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: n - 1 }) });

export const httpCaseArb: fc.Arbitrary<HttpCase> = fc.record({
  c: caseArb,
  bytes: fc.oneof({ weight: 4, arbitrary: fc.constant<ByteOp[]>([]) }, { weight: 1, arbitrary: fc.array(byteOpArb, { minLength: 1, maxLength: 2 }) }),
  method: pick(12, METHODS.length),
  contentType: pick(12, CONTENT_TYPES.length),
  accept: pick(8, ACCEPTS.length),
  origin: pick(8, ORIGINS.length),
  version: fc.oneof({ weight: 8, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat({ max: VERSIONS.length }) }),
  mcpMethod: fc.oneof({ weight: 8, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat({ max: 2 }) }),
  mcpName: fc.oneof({ weight: 8, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat({ max: NAMES.length }) }),
  session: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat({ max: 5 }) }),
});

/** Headers a correct client would send for this (pre-mutation) seed. */
function seedHeaders(seedTree: Tree): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!isObject(seedTree)) return headers;
  const params = seedTree.params;
  const meta = isObject(params) ? params._meta : undefined;
  if (isObject(meta) && typeof meta[PV] === 'string') {
    headers['mcp-protocol-version'] = meta[PV];
    if (typeof seedTree.method === 'string') headers['mcp-method'] = seedTree.method;
    const name = isObject(params) ? (params.name ?? params.uri) : undefined;
    if (typeof name === 'string') headers['mcp-name'] = name;
  } else if (seedTree.method !== 'initialize') {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return headers;
}

export interface Built {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | undefined;
  gate: number | undefined;
  /** The body as text (for echo-aware leak checks) and its parsed value, if any. */
  text: string;
  message: unknown;
  expected: Expectation;
  parseError: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function buildRequest(h: HttpCase, sessions: string[], maxBodyBytes: number): Built {
  const tree = mutate(h.c.seed, h.c.ops);
  const bytes = mutateBytes(Buffer.from(mutateText(toText(tree), h.c.textOps), 'utf8'), h.bytes);
  const [method, methodGate] = METHODS[h.method]!;
  const [contentType, ctGate] = CONTENT_TYPES[h.contentType]!;
  const [accept, acceptGate] = ACCEPTS[h.accept]!;
  const [origin, originGate] = ORIGINS[h.origin]!;
  const headers = seedHeaders(h.c.seed);
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (accept !== undefined) headers.accept = accept;
  if (origin !== undefined) headers.origin = origin;
  if (h.version >= 0) {
    if (h.version === VERSIONS.length) delete headers['mcp-protocol-version'];
    else headers['mcp-protocol-version'] = VERSIONS[h.version]!;
  }
  if (h.mcpMethod === 0) delete headers['mcp-method'];
  else if (h.mcpMethod === 1) headers['mcp-method'] = 'tools/list';
  else if (h.mcpMethod === 2) headers['mcp-method'] = ' x ';
  if (h.mcpName >= 0) {
    if (h.mcpName === NAMES.length) delete headers['mcp-name'];
    else headers['mcp-name'] = NAMES[h.mcpName]!;
  }
  // A 2025 GET with a session is the session's notification stream (test/state/), not a gate case.
  if (h.session >= 0 && method !== 'GET') headers['mcp-session-id'] = sessions[h.session % sessions.length]!;

  const gate = originGate ?? methodGate ?? ctGate ?? acceptGate ?? (bytes.length > maxBodyBytes ? 413 : undefined);
  let text = '';
  let parseError = false;
  let parsed: { ok: true; value: unknown } | { ok: false } = { ok: false };
  try {
    text = decoder.decode(bytes);
    parsed = parse(text);
  } catch {
    // invalid UTF-8: -32700
  }
  if (!parsed.ok) parseError = true;
  return {
    method: method!,
    headers,
    body: method === 'POST' ? new Uint8Array(bytes) : undefined,
    gate,
    text,
    message: parsed.ok ? parsed.value : undefined,
    expected: expectationOf(parsed),
    parseError,
  };
}

export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array<ArrayBuffer>; signal?: AbortSignal }) => Promise<Response>;

/** Response headers a MiniMCP endpoint may send; anything else is suspicious (header injection, leaks). */
const KNOWN_RESPONSE_HEADERS = new Set([
  'content-type', 'content-length', 'cache-control', 'x-accel-buffering', 'mcp-session-id', 'retry-after', 'allow', 'connection',
  'date', 'keep-alive', 'transfer-encoding',
]);

/** Which JSON-RPC codes may travel with which HTTP status (errors.md §3). */
const CODES_BY_STATUS: Record<number, number[]> = {
  200: [-32601, -32602, -32603],
  400: [-32700, -32600, -32602, -32020, -32021, -32022],
  403: [-32600],
  404: [-32601, -32600],
  405: [-32600],
  406: [-32600],
  413: [-32600],
  415: [-32600],
  503: [-32603],
};

export interface ExchangeResult {
  problems: string[];
  status: number;
  streamed: boolean;
  reply: unknown;
  serverRequests: number;
  /** GET + Last-Event-ID reconnections made (SEP-1699). */
  resumed: number;
}

/** Reads SSE `data:` events as they come; answers server requests; returns the last non-notification event. */
async function readStream(
  response: Response,
  onEvent: (event: Record<string, unknown>) => Promise<void> | void,
  cancelAfterMs: number | undefined,
  problems: string[],
  resume: { lastId?: string; lastSeq: number; retry?: number } = { lastSeq: -1 },
): Promise<unknown[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const out: unknown[] = [];
  const cancel = cancelAfterMs === undefined ? undefined : setTimeout(() => void reader.cancel().catch(() => {}), cancelAfterMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        // SSE fields (WHATWG): comments (':'), id, retry, event, data; an event without data (the
        // SEP-1699 priming event: an id and a retry) carries no message.
        let data: string | undefined;
        let type = 'message';
        for (const line of block.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
          else if (field === 'event') type = value;
          else if (field === 'id') {
            const seq = Number(/-(\d+)$/.exec(value)?.[1] ?? NaN);
            if (!Number.isInteger(seq) || seq <= resume.lastSeq) problems.push(`SSE event id ${short(value)} does not increase`);
            resume.lastSeq = seq;
            resume.lastId = value;
          } else if (field === 'retry') {
            if (!/^\d+$/.test(value)) problems.push(`SSE retry ${short(value)} is not a number`);
            resume.retry = Number(value);
          } else problems.push(`unknown SSE field ${short(field)}`);
        }
        if (data === undefined || data === '') continue; // keep-alive comment or priming event
        if (type !== 'message') problems.push(`SSE event of type ${short(type)}`);
        const p = parse(data);
        if (!p.ok || !isObject(p.value)) {
          problems.push(`SSE data is not a JSON object: ${short(data)}`);
          continue;
        }
        out.push(p.value);
        await onEvent(p.value);
      }
    }
  } catch {
    // cancelled by us (listen) or the stream broke; what was read is judged
  } finally {
    clearTimeout(cancel);
  }
  if (buffered.trim() !== '') problems.push(`SSE stream ended mid-event: ${short(buffered)}`);
  return out;
}

export async function runExchange(fetchLike: FetchLike, url: string, b: Built, timeoutMs = 5_000): Promise<ExchangeResult> {
  const problems: string[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('fuzz timeout')), timeoutMs);
  let serverRequests = 0;
  let resumed = 0;
  try {
    let response: Response;
    try {
      response = await fetchLike(url, { method: b.method, headers: b.headers, body: b.body, signal: controller.signal });
    } catch (error) {
      return { problems: [`the request failed: ${String(error)}`], status: 0, streamed: false, reply: undefined, serverRequests, resumed };
    }
    const status = response.status;
    response.headers.forEach((value, name) => {
      if (!KNOWN_RESPONSE_HEADERS.has(name)) problems.push(`unexpected response header ${name}: ${short(value)}`);
      if (/[\r\n\0]/.test(value)) problems.push(`response header ${name} carries control characters`);
    });
    const session = response.headers.get('mcp-session-id');
    if (session !== null && !/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/.test(session)) problems.push(`odd Mcp-Session-Id: ${short(session)}`);
    if (session !== null && session.length > 1024) problems.push('Mcp-Session-Id over 1 KB');
    const type = response.headers.get('content-type') ?? '';
    const streamed = type.startsWith('text/event-stream');
    let reply: unknown;
    let bodyText = '';
    if (streamed) {
      if (status !== 200) problems.push(`SSE with status ${status}`);
      const m = b.message as Record<string, unknown> | undefined;
      const listen = isObject(m) && m.method === 'subscriptions/listen';
      const resume = { lastSeq: -1 } as { lastId?: string; lastSeq: number; retry?: number };
      const onEvent = async (event: Record<string, unknown>) => {
        if (typeof event.method === 'string' && 'id' in event) {
          serverRequests++;
          const answer = new TextEncoder().encode(JSON.stringify({ jsonrpc: '2.0', id: event.id, error: { code: -32601, message: 'declined' } }));
          const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as Record<string, string>;
          if (b.headers['mcp-session-id']) headers['mcp-session-id'] = b.headers['mcp-session-id'];
          if (b.headers['mcp-protocol-version']) headers['mcp-protocol-version'] = b.headers['mcp-protocol-version'];
          const r = await fetchLike(url, { method: 'POST', headers, body: answer });
          const t = await r.text();
          if (r.status !== 202 || t !== '') problems.push(`the answer to a server request got ${r.status} ${short(t)}`);
        }
      };
      const events = await readStream(response, onEvent, listen ? 30 : undefined, problems, resume);
      // SEP-1699: a 2025 stream the server closed early (ctx.closeStream()) is resumed with GET + Last-Event-ID.
      for (let attempt = 0; !listen && resume.lastId !== undefined && !events.some((e) => isObject(e) && typeof e.method !== 'string') && attempt < 5; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(resume.retry ?? 0, 20)));
        const headers: Record<string, string> = { accept: 'text/event-stream', 'last-event-id': resume.lastId };
        for (const h of ['mcp-session-id', 'mcp-protocol-version', 'origin']) if (b.headers[h] !== undefined) headers[h] = b.headers[h]!;
        const again = await fetchLike(url, { method: 'GET', headers, signal: controller.signal });
        resumed++;
        if (again.status === 204) break;
        if (again.status !== 200 || !(again.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          problems.push(`resuming with Last-Event-ID ${resume.lastId} got ${again.status} ${short(await again.text())}`);
          break;
        }
        events.push(...(await readStream(again, onEvent, undefined, problems, resume)));
      }
      const replies = events.filter((e) => isObject(e) && typeof e.method !== 'string');
      if (replies.length > 1) problems.push(`${replies.length} replies on one stream`);
      if (replies.length === 1 && events[events.length - 1] !== replies[0]) problems.push('the reply is not the last event of its stream');
      reply = replies[0];
      if (listen && reply === undefined) return { problems, status, streamed, reply: 'listen-closed', serverRequests, resumed };
    } else {
      bodyText = await response.text();
      if (bodyText !== '') {
        if (!type.startsWith('application/json')) problems.push(`a body with content-type ${type || '(none)'}`);
        const p = parse(bodyText);
        if (!p.ok) problems.push(`the body is not JSON: ${short(bodyText)}`);
        else reply = p.value;
      }
    }
    problems.push(...leaks(bodyText, b.text));

    // Status and body, by who should have answered.
    if (b.gate !== undefined) {
      if (status !== b.gate) problems.push(`status ${status}, the gate should have answered ${b.gate}`);
      problems.push(...checkReply(reply, { replies: 1, id: null }, b.text, undefined));
    } else if (b.parseError) {
      if (status !== 400) problems.push(`status ${status} for a body that is not UTF-8 JSON (expected 400)`);
      problems.push(...checkReply(reply, { replies: 1, id: null }, b.text, undefined));
    } else if (b.expected.replies === 0) {
      if (status !== 202 || bodyText !== '') problems.push(`a notification got ${status} ${short(bodyText)} (expected 202, empty)`);
    } else {
      problems.push(...checkReply(reply, b.expected, b.text, b.message));
      if (isObject(reply) && isObject(reply.error) && typeof reply.error.code === 'number') {
        const allowed = CODES_BY_STATUS[status] ?? [];
        if (!allowed.includes(reply.error.code)) problems.push(`status ${status} with code ${reply.error.code}`);
      } else if (isObject(reply) && 'result' in reply && status !== 200) problems.push(`a result with status ${status}`);
      if (status === 503 && response.headers.get('retry-after') === null) problems.push('503 without Retry-After');
    }
    return { problems, status, streamed, reply, serverRequests, resumed };
  } finally {
    clearTimeout(timer);
  }
}
