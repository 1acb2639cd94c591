/**
 * examples/auth as its contract states it: `AUTH_ISSUER=<issuer> PORT=N npm run -s start:auth` serves
 * the math example at http://127.0.0.1:N/mcp, accepting JWTs from that issuer whose audience is that
 * URL, tools needing `mcp:tools`; without AUTH_ISSUER it starts a local authorization server and
 * prints its URL. Tokens come from the authorization servers themselves (client credentials).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/oidc-issuer.js';
import { schemaErrors } from '../support/server-card-schema.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const freePort = () => new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

interface Started {
  child: ChildProcess;
  url: string;
  issuer: string;
}

/** Runs the npm script and reads the two URLs it prints. */
async function startAuth(env: Record<string, string>): Promise<Started> {
  const child = spawn('npm', ['run', '-s', 'start:auth'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise<Started>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      const issuer = /Authorization server[^:]*: (\S+)/.exec(out)?.[1];
      if (url && issuer) resolve({ child, url, issuer });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.once('exit', () => reject(new Error(`start:auth exited early:\n${out}`)));
  });
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

/** A client-credentials token from the example's own authorization server, registered dynamically. */
async function localToken(issuer: string, resource: string, scope?: string): Promise<string> {
  const registration = await (await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp:tools' }),
  })).json() as { client_id: string; client_secret: string };
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${registration.client_id}:${registration.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, ...(scope ? { scope } : {}) }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function withClient<T>(url: string, token: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('npm run start:auth without AUTH_ISSUER: its own local authorization server', () => {
  let started: Started;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    started = await startAuth({ PORT: String(port), AUTH_ISSUER: '' });
  }, 60_000);
  afterAll(() => stop(started));

  it('serves http://127.0.0.1:N/mcp and prints the local issuer, which its metadata names', async () => {
    expect(started.url).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(started.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const refused = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refused);
    expect(scope).toBe('mcp:tools');
    expect(await (await fetch(resourceMetadataUrl!)).json()).toMatchObject({ resource: started.url, authorization_servers: [started.issuer], scopes_supported: ['mcp:tools'] });
  });

  it('serves a Server Card without a token, valid against the published schema, naming the canonical URL and the bearer header', async () => {
    const answer = await fetch(`${started.url}/server-card`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/mcp-server-card+json');
    const card = await answer.json();
    expect(schemaErrors(card)).toEqual([]);
    expect(card).toMatchObject({ name: 'com.example/minimcp-math-auth', version: '1.0.0', remotes: [{ type: 'streamable-http', url: started.url }] });
    expect(card.remotes[0].headers).toEqual([expect.objectContaining({ name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {token}' })]);
    expect(JSON.stringify(card)).not.toContain(started.issuer); // no topology beyond the endpoint itself
    const catalog = await (await fetch(new URL('/.well-known/ai-catalog.json', started.url))).json();
    expect(catalog.entries[0].url).toBe(`${started.url}/server-card`);
  });

  it('a token from it with mcp:tools calls the math tools; one without sees none and gets 403 on a call', async () => {
    const tools = await localToken(started.issuer, started.url, 'mcp:tools');
    await withClient(started.url, tools, async (client) => {
      expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).structuredContent).toEqual({ result: 5 });
    });
    const bare = await localToken(started.issuer, started.url);
    await withClient(started.url, bare, async (client) => {
      expect((await client.listTools()).tools).toEqual([]);
      await expect(client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).rejects.toThrow('Forbidden: this operation needs the scope mcp:tools');
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['math://constants/pi']); // open to any valid token
    });
  });
});

describe('AUTH_ISSUER=<issuer> PORT=N npm run -s start:auth', () => {
  let issuer: TestIssuer;
  let started: Started | undefined;
  beforeAll(async () => {
    issuer = await startIssuer();
  });
  afterAll(async () => {
    await stop(started);
    await issuer.close();
  });

  it('accepts that issuer\'s JWTs for http://127.0.0.1:N/mcp, and no others', async () => {
    const port = await freePort();
    started = await startAuth({ PORT: String(port), AUTH_ISSUER: issuer.issuer });
    expect([started.url, started.issuer]).toEqual([`http://127.0.0.1:${port}/mcp`, issuer.issuer]);
    const token = await issuer.clientToken('alice-app', started.url, 'mcp:tools');
    await withClient(started.url, token, async (client) => {
      expect((await client.callTool({ name: 'multiply', arguments: { a: 6, b: 7 } })).structuredContent).toEqual({ result: 42 });
    });
    const elsewhere = await issuer.clientToken('alice-app', `http://127.0.0.1:${port + 1}/mcp`, 'mcp:tools');
    const refused = await fetch(started.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${elsewhere}` }, body: '{}' });
    expect([refused.status, extractWWWAuthenticateParams(refused).error]).toEqual([401, 'invalid_token']);
  }, 60_000);
});
