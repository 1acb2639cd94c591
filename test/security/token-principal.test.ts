/**
 * Issue 32, item 1: under `auth`, the verified token decides who is asking. Before, a `principal`
 * option that named anyone replaced the token's principal, so a server that followed the docs ("name
 * the principal too") with a value two tokens share (here the team, from a header) gave two people one
 * principal: bob's token with alice's Mcp-Session-Id got 200. Now the option only refines the token's
 * principal (a team within the user). Real tokens from oidc-provider, real HTTP, both eras: sessions,
 * resumable streams, tasks, cancels and MRTR requestState. (A 2026 call is cancelled by closing its
 * response, which no other caller can do; its tasks are cancelled with tasks/cancel, tested here.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthResourceServer } from '../../src/auth/index.js';
import { MiniMCP } from '../../src/index.js';
import { createNodeHandler } from '../../src/transports/http/node.js';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';

let issuer: TestIssuer;
let server: Server;
let url: string;
let alice: string;
let bob: string;
/** What each run of the `wait` tool came to, by its tag. */
const waits = new Map<string, 'finished' | 'aborted'>();
const started = new Map<string, () => void>();

const TEAM = 'acme';
const INVALID_STATE = { code: -32602, message: 'Invalid requestState: it was altered, has expired or belongs to another request' };

function createMcp(): MiniMCP<{ team: string }> {
  // The team both users belong to, as the server named it: one value for two tokens.
  const mcp = new MiniMCP<{ team: string }>({
    name: 'token-principal', version: '1.0.0', principal: (scope) => scope?.team,
    requestState: { secret: 'token-principal-test-secret-0123456789' }, onError: () => {},
  });
  mcp.tool('later', { task: 'optional' }, async (_args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    return `task result for ${ctx.auth?.subject}`;
  });
  mcp.tool('secret', {}, async (_args, ctx) => {
    ctx.closeStream();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return `secret result for ${ctx.auth?.subject}`;
  });
  mcp.tool('wait', {}, async (args: Record<string, unknown>, ctx) => {
    const tag = String(args.tag);
    started.get(tag)?.();
    const outcome = await new Promise<'finished' | 'aborted'>((resolve) => {
      const timer = setTimeout(() => resolve('finished'), 400);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), resolve('aborted')), { once: true });
    });
    waits.set(tag, outcome);
    return outcome;
  });
  mcp.tool('confirm', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Transfer?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'ok' });
    return `confirmed by ${ctx.auth?.subject}: ${JSON.stringify(answer.content)}`;
  });
  return mcp;
}

beforeAll(async () => {
  issuer = await startIssuer();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const auth = oauthResourceServer({ issuer: issuer.issuer, resource: url, scopes: ['mcp:tools'] });
  const handler = createNodeHandler(createMcp(), { auth, scope: (req) => ({ team: String(req.headers['x-team']) }) });
  server.on('request', handler);
  [alice, bob] = await Promise.all([issuer.clientToken('alice-app', url, 'mcp:tools'), issuer.clientToken('bob-app', url, 'mcp:tools')]);
}, 30_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await issuer?.close();
});

const post = (token: string, body: object, extra: Record<string, string> = {}, accept = 'application/json, text/event-stream') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}`, 'x-team': TEAM, ...extra },
    body: JSON.stringify(body),
  });
/** Until the `wait` tool with this tag has started. */
const waitStarted = (tag: string) => new Promise<void>((resolve) => started.set(tag, resolve));

describe('2025-11-25: the token takes part in the principal, whatever the principal option says', () => {
  const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
  const sessionOf = async (token: string) => {
    const init = await post(token, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    return init.headers.get('mcp-session-id')!;
  };

  it("bob cannot use alice's session id", async () => {
    const session = await sessionOf(alice);
    expect(session).toBeTruthy();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await post(alice, ping, { ...LEGACY, 'mcp-session-id': session })).status).toBe(200);
    expect((await post(bob, ping, { ...LEGACY, 'mcp-session-id': session })).status).toBe(404);
  });

  it("bob cannot resume alice's stream with her session id and the Last-Event-ID", async () => {
    const headers = { ...LEGACY, 'mcp-session-id': await sessionOf(alice) };
    const primed = await (await post(alice, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'secret', arguments: {} } }, headers)).text();
    const eventId = /^id: (\S+)$/m.exec(primed)![1]!;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const resume = (token: string) =>
      fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, 'x-team': TEAM, ...headers, 'last-event-id': eventId } });
    const stolen = await resume(bob);
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).not.toContain('secret result');
    const own = await resume(alice);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('secret result for alice-app');
  });

  it("bob cannot read or cancel alice's task from his own session", async () => {
    const [aliceSession, bobSession] = await Promise.all([sessionOf(alice), sessionOf(bob)]);
    const created = await (await post(alice, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'later', arguments: {}, task: { ttl: 60_000 } } },
      { ...LEGACY, 'mcp-session-id': aliceSession })).json();
    const taskId = created.result?.task?.taskId as string;
    expect(typeof taskId).toBe('string');
    const ask = (token: string, session: string, method: string) =>
      post(token, { jsonrpc: '2.0', id: 4, method, params: { taskId } }, { ...LEGACY, 'mcp-session-id': session }).then((r) => r.json());
    expect((await ask(bob, bobSession, 'tasks/get')).error).toMatchObject({ code: -32602 });
    expect((await ask(bob, bobSession, 'tasks/cancel')).error).toMatchObject({ code: -32602 });
    expect((await ask(alice, aliceSession, 'tasks/get')).result).toMatchObject({ taskId });
  });

  it("bob's notifications/cancelled with alice's session and request id does not cancel her call; hers does", async () => {
    const session = await sessionOf(alice);
    const headers = { ...LEGACY, 'mcp-session-id': session };
    const cancel = (token: string, id: number) => post(token, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, headers);
    const running = waitStarted('legacy-1');
    const call = post(alice, { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'wait', arguments: { tag: 'legacy-1' } } }, headers, 'application/json');
    await running;
    await cancel(bob, 41);
    await (await call).text();
    expect(waits.get('legacy-1')).toBe('finished');
    // The same cancel from alice reaches it: the key bob missed is a real one.
    const mine = waitStarted('legacy-2');
    const second = post(alice, { jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'wait', arguments: { tag: 'legacy-2' } } }, headers, 'application/json');
    await mine;
    await cancel(alice, 42);
    await (await second).text();
    expect(waits.get('legacy-2')).toBe('aborted');
  });
});

describe('2026-07-28: the token takes part in the principal, whatever the principal option says', () => {
  const meta = (caps: object = {}) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps });
  const modern = (token: string, id: number, method: string, params: Record<string, unknown>, caps: object = {}) => {
    const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
    const name = params.name ?? params.taskId;
    if (typeof name === 'string') headers['mcp-name'] = name;
    return post(token, { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(caps) } }, headers);
  };

  it("bob cannot finish alice's call with her requestState", async () => {
    const elicitation = { elicitation: {} };
    const first = await (await modern(alice, 5, 'tools/call', { name: 'confirm', arguments: {} }, elicitation)).json();
    expect(first.result.resultType).toBe('input_required');
    const state = first.result.requestState as string;
    const answer = { inputResponses: { ok: { action: 'accept', content: { ok: true } } }, requestState: state };
    const stolen = await (await modern(bob, 6, 'tools/call', { name: 'confirm', arguments: {}, ...answer }, elicitation)).json();
    expect(stolen.error).toEqual(INVALID_STATE);
    const own = await (await modern(alice, 7, 'tools/call', { name: 'confirm', arguments: {}, ...answer }, elicitation)).json();
    expect(own.result.content).toEqual([{ type: 'text', text: 'confirmed by alice-app: {"ok":true}' }]);
  });

  it("bob cannot read, update or cancel alice's task", async () => {
    const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const created = await (await modern(alice, 8, 'tools/call', { name: 'later', arguments: {} }, tasks)).json();
    expect(created.result.resultType).toBe('task');
    const taskId = created.result.taskId as string;
    await new Promise((resolve) => setTimeout(resolve, 30));
    const ask = async (token: string, method: string) => (await modern(token, 9, method, { taskId }, tasks)).json();
    expect((await ask(bob, 'tasks/get')).error).toMatchObject({ code: -32602 });
    expect((await ask(bob, 'tasks/cancel')).error).toMatchObject({ code: -32602 });
    const own = await ask(alice, 'tasks/get');
    expect(own.result).toMatchObject({ taskId, status: 'completed' });
    expect(own.result.result.content).toEqual([{ type: 'text', text: 'task result for alice-app' }]);
  });
});

describe('mcp.principalOf: what the app names refines the token, and stands alone only without one', () => {
  const token = (subject: string) => ({
    principal: JSON.stringify(['https://issuer.example', subject]), issuer: 'https://issuer.example', subject,
    clientId: undefined, scopes: [], expiresAt: undefined, claims: {},
  });
  const byTeam = new MiniMCP<{ team?: string; principal?: string }>({ name: 'p', version: '1', principal: (scope) => scope?.team });

  it('a shared team under two tokens is two principals; one user in two teams is two principals', () => {
    const [ada, gus] = [token('ada'), token('gus')];
    expect(byTeam.principalOf({ team: 'acme' }, ada)).not.toBe(byTeam.principalOf({ team: 'acme' }, gus));
    expect(byTeam.principalOf({ team: 'acme' }, ada)).not.toBe(byTeam.principalOf({ team: 'zeta' }, ada));
    expect(byTeam.principalOf({ team: 'acme' }, ada)).not.toBe(ada.principal);
  });

  it("naming nothing, the token's subject or its principal leaves the token's principal as it is", () => {
    const ada = token('ada');
    expect(byTeam.principalOf({}, ada)).toBe(ada.principal);
    expect(byTeam.principalOf({ team: 'ada' }, ada)).toBe(ada.principal);
    expect(byTeam.principalOf({ team: ada.principal }, ada)).toBe(ada.principal);
  });

  it("the scope's own principal string refines the token too, and the option alone still names it without a token", () => {
    const plain = new MiniMCP<{ principal: string }>({ name: 'p', version: '1' });
    expect(plain.principalOf({ principal: 'shared' }, token('ada'))).not.toBe(plain.principalOf({ principal: 'shared' }, token('gus')));
    expect(plain.principalOf({ principal: 'shared' })).toBe('shared');
    expect(byTeam.principalOf({ team: 'acme' })).toBe('acme');
  });
});
