/**
 * The example's contract (issue 34 item 7): `PORT=N npm run -s start:events` serves /mcp in both eras,
 * `incident.created` (poll, push and webhook, replay on) and `raise_incident`, whose eventId is what
 * a poll then returns; the heartbeat follows EVENTS_HEARTBEAT_MS; without a bearer token, webhook
 * subscriptions are refused. Driven with plain fetch, as the printed curl lines do.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
let npm: ReturnType<typeof spawn>;
let url: string;
let printed = '';

beforeAll(async () => {
  npm = spawn('npm', ['run', '-s', 'start:events'], { cwd: root, env: { ...process.env, PORT: '0', EVENTS_HEARTBEAT_MS: '300', REDIS_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    npm.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const found = /listening on (\S+)/.exec(printed);
      if (found && printed.includes('raise_incident')) resolve(found[1]!); // the curl lines printed too
    });
    npm.once('exit', () => reject(new Error(`start:events exited early:\n${printed}`)));
  });
}, 30_000);
afterAll(() => {
  npm?.kill('SIGTERM');
});

const modern = (method: string, params: object, extra: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', signal, headers: { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }) });

it('prints curl lines, polls and streams in 2026, and raise_incident returns the eventId polled', async () => {
  expect(printed).toContain("-H 'Mcp-Method: events/poll'");
  expect(printed).toContain("-H 'Mcp-Method: events/stream'");
  const list = (await (await modern('events/list', {})).json()) as any;
  expect(list.result.events[0]).toMatchObject({ name: 'incident.created', delivery: ['poll', 'push', 'webhook'] });
  const start = ((await (await modern('events/poll', { name: 'incident.created', arguments: {}, cursor: null })).json()) as any).result;
  const abort = new AbortController();
  const stream = await modern('events/stream', { name: 'incident.created', arguments: { service: 'db' } }, {}, abort.signal);
  const raised = ((await (await modern('tools/call', { name: 'raise_incident', arguments: { service: 'db', severity: 'high' } }, { 'mcp-name': 'raise_incident' })).json()) as any).result;
  const { eventId } = raised.structuredContent;
  const polled = ((await (await modern('events/poll', { name: 'incident.created', arguments: {}, cursor: start.cursor })).json()) as any).result;
  expect(polled.events.map((e: any) => e.eventId)).toEqual([eventId]);
  const reader = stream.body!.getReader();
  let text = '';
  const started = Date.now();
  while (!(text.includes(eventId) && text.includes('notifications/events/heartbeat')) && Date.now() - started < 5_000) text += new TextDecoder().decode((await reader.read()).value);
  expect(text).toContain(eventId);
  expect(text).toContain('notifications/events/heartbeat');
  abort.abort();
});

it('serves 2025-11-25 after initialize, and refuses a webhook subscription without a bearer token', async () => {
  const init = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
  const session = init.headers.get('mcp-session-id')!;
  expect(((await init.json()) as any).result.capabilities.events).toEqual({ listChanged: true });
  const headers = { ...HEADERS, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session };
  await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  const poll = (await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'events/poll', params: { name: 'incident.created', arguments: {}, cursor: null } }) })).json()) as any;
  expect(poll.result).toMatchObject({ events: [], truncated: false });
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const refused = (await (await modern('events/subscribe', { name: 'incident.created', arguments: {}, delivery: { mode: 'webhook', url: 'https://hooks.example.com/x', secret } })).json()) as any;
  expect(refused.error).toMatchObject({ code: -32024 });
});
