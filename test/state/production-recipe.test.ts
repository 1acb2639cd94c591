/**
 * Issue 32, item 4: docs/production.md as a user would follow it. Its three source files are taken
 * from the page as written (only `minimcp/*` imports are pointed at src/), and two instances of it run
 * on one real Redis with one MINIMCP_SECRET, trusting a real authorization server (oidc-provider) whose
 * tokens carry the team and roles claims. Both instances answer as one server; SIGTERM ends one cleanly.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without a declaration file
import { extractSnippets } from '../../scripts/doc-snippets.mjs';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { clusterAvailable, startRedis, type Redis } from './support/cluster.js';
import { freePort } from '../../scripts/cluster.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PUBLIC = 'http://mcp.example.test/mcp';
const SUBPATHS: Record<string, string> = {
  minimcp: 'src/index.ts', 'minimcp/auth': 'src/auth/index.ts', 'minimcp/express': 'src/adapters/express.ts', 'minimcp/redis': 'src/redis/index.ts',
};
const TEAM = 'https://example.com/team';
const ROLES = 'https://example.com/roles';

/** The page's files, by the path each block names on its first line. */
function recipeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const block of extractSnippets(join(ROOT, 'docs/production.md')) as { code: string }[]) {
    const path = /^\/\/ (src\/\S+\.ts)\n/.exec(block.code)?.[1];
    if (path) files[path] = block.code.replace(/from '(minimcp(?:\/\w+)?)'/g, (_all: string, name: string) => `from '${join(ROOT, SUBPATHS[name]!)}'`);
  }
  return files;
}

interface Instance { port: number; child: ChildProcess; exited: Promise<number | null> }

async function startInstance(main: string, env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', join(ROOT, 'node_modules/tsx/dist/loader.mjs'), main], {
    cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'pipe',
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the recipe did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) (clearTimeout(timer), resolve());
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => (clearTimeout(timer), reject(new Error(`the recipe exited (${code}): ${output}`))));
  });
  return { port, child, exited };
}

/** A request to one instance with the public Host, as a load balancer that keeps it forwards it. */
function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: object): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { host: 'mcp.example.test', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const JSON_POST = { 'content-type': 'application/json', accept: 'application/json' };
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
function modern(port: number, token: string, id: number, method: string, params: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { ...JSON_POST, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  return call(port, 'POST', '/mcp', headers, { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });
}
const toolNames = async (port: number, token: string) => (JSON.parse((await modern(port, token, 1, 'tools/list')).text).result.tools as { name: string }[]).map((t) => t.name);
const text = async (reply: Promise<{ text: string }>) => JSON.parse((await reply).text).result.content[0].text as string;

describe.skipIf(!clusterAvailable())('docs/production.md, followed as written: two instances, one Redis, a real IdP', () => {
  let issuer: TestIssuer;
  let redis: Redis;
  let a: Instance;
  let b: Instance;
  let alice: string;
  let bob: string;
  const dir = join(ROOT, `node_modules/.cache/minimcp-production-recipe-${process.pid}`);

  beforeAll(async () => {
    issuer = await startIssuer({
      scopes: ['notes:read', 'notes:write'],
      extraClaims: { 'alice-app': { [TEAM]: 'blue', [ROLES]: ['admin'] }, 'bob-app': { [TEAM]: 'blue', [ROLES]: [] } },
    });
    redis = await startRedis();
    const files = recipeFiles();
    expect(Object.keys(files).sort()).toEqual(['src/caller.ts', 'src/main.ts', 'src/server.ts']);
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n'); // the page's `npm pkg set type=module`
    for (const [path, code] of Object.entries(files)) writeFileSync(join(dir, path), code);
    const env = { MCP_URL: PUBLIC, OAUTH_ISSUER: issuer.issuer, REDIS_URL: redis.url, MINIMCP_SECRET: 'one-secret-for-every-instance-0123456789' };
    [a, b] = await Promise.all([startInstance(join(dir, 'src/main.ts'), env), startInstance(join(dir, 'src/main.ts'), env)]);
    [alice, bob] = await Promise.all([issuer.clientToken('alice-app', PUBLIC, 'notes:read'), issuer.clientToken('bob-app', PUBLIC, 'notes:read notes:write')]);
  }, 90_000);
  afterAll(async () => {
    for (const instance of [a, b]) if (instance?.child.exitCode === null) (instance.child.kill('SIGKILL'), await instance.exited);
    await redis?.stop();
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the metadata naming the IdP, and challenges a request without a token', async () => {
    const metadata = await call(a.port, 'GET', '/.well-known/oauth-protected-resource/mcp');
    expect(JSON.parse(metadata.text)).toMatchObject({ resource: PUBLIC, authorization_servers: [issuer.issuer], scopes_supported: ['notes:read', 'notes:write'] });
    const refused = await call(b.port, 'POST', '/mcp', JSON_POST, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer resource_metadata="http://mcp.example.test/.well-known/oauth-protected-resource/mcp", scope="notes:read notes:write"');
    expect((await call(a.port, 'GET', '/healthz')).text).toBe('ok');
  });

  it('builds the typed scope from the token: user, team and roles, on either instance', async () => {
    expect(await text(modern(a.port, alice, 2, 'tools/call', { name: 'whoami', arguments: {} }))).toBe('alice-app in blue (admin)');
    expect(await text(modern(b.port, bob, 3, 'tools/call', { name: 'whoami', arguments: {} }))).toBe('bob-app in blue (no roles)');
    expect(await toolNames(b.port, alice)).toEqual(['whoami', 'purge_notes']); // no notes:write; admin
    expect(await toolNames(a.port, bob)).toEqual(['whoami', 'add_note']);      // notes:write; no admin
  });

  it('checks scopes per operation: the 403 step-up, and the call once the token has the scope', async () => {
    const refused = await modern(a.port, alice, 4, 'tools/call', { name: 'add_note', arguments: { text: 'hi' } });
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_scope", .*scope="notes:read notes:write"$/);
    expect(await text(modern(b.port, bob, 5, 'tools/call', { name: 'add_note', arguments: { text: 'hi' } }))).toBe('noted for blue: hi');
  });

  it("shares 2025 sessions through Redis and the secret, and keeps them per user even within one team", async () => {
    const init = await call(a.port, 'POST', '/mcp', { ...JSON_POST, authorization: `Bearer ${alice}` },
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    const ping = (port: number, token: string) =>
      call(port, 'POST', '/mcp', { ...JSON_POST, authorization: `Bearer ${token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await ping(b.port, alice)).status).toBe(200);
    expect((await ping(b.port, bob)).status).toBe(404);
  });

  it('SIGTERM: the instance finishes and exits 0; the other goes on', async () => {
    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await text(modern(b.port, alice, 6, 'tools/call', { name: 'whoami', arguments: {} }))).toBe('alice-app in blue (admin)');
  });
});
