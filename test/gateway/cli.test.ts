/**
 * Issue 36, the CLI: `minimcp proxy` reads its options (stdio, http, repeatable mounts, headers,
 * per-principal, auth), serves a stdio upstream we did not write over HTTP, and with --auth-issuer
 * refuses a request without a token (401 and the resource metadata), as a remote server must.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { proxyArgs } from '../../src/dev/proxy-command.js';
import { clientV1, EVERYTHING } from './support.js';

describe('proxyArgs', () => {
  it('reads stdio, http, mounts, headers and auth', () => {
    const args = proxyArgs([
      '--port', '8080', '--mount', 'fs=npx -y server "a b"', '--mount', 'remote=https://mcp.example.com/mcp',
      '--header', 'Authorization: Bearer upstream-own', '--auth-issuer', 'https://id.example.com', '--auth-scopes', 'mcp:tools mcp:read',
    ]);
    expect(args).toEqual({
      port: 8080, host: '127.0.0.1',
      upstreams: [
        { name: 'fs', spec: { stdio: 'npx -y server "a b"' } },
        { name: 'remote', spec: { url: 'https://mcp.example.com/mcp', headers: { authorization: 'Bearer upstream-own' } } },
      ],
      auth: { issuer: 'https://id.example.com', resource: 'http://127.0.0.1:8080/mcp', scopes: ['mcp:tools', 'mcp:read'] },
    });
    expect(proxyArgs(['--stdio', 'node s.js', '--per-principal'], { PORT: '9' }).upstreams).toEqual([{ name: undefined, spec: { stdio: 'node s.js', perPrincipal: true } }]);
  });

  it("reads the gateway's own OAuth client, its secret from the environment only", () => {
    const argv = ['--http', 'http://127.0.0.1:9/mcp', '--upstream-client-id', 'gw', '--upstream-client-secret-env', 'GW_SECRET', '--upstream-issuer', 'https://id.example.com', '--upstream-scope', 'mcp:tools'];
    expect(proxyArgs(argv, { GW_SECRET: 's3cret' }).upstreams).toEqual([{
      name: undefined,
      spec: { url: 'http://127.0.0.1:9/mcp', headers: {}, oauth: { resource: 'http://127.0.0.1:9/mcp', clientId: 'gw', clientSecret: 's3cret', issuer: 'https://id.example.com', scope: 'mcp:tools' } },
    }]);
    expect(() => proxyArgs(argv, {})).toThrow(/GW_SECRET .* is not set/);
    expect(() => proxyArgs(['--http', 'http://127.0.0.1:9/mcp', '--upstream-client-id', 'gw', '--upstream-issuer', 'https://id.example.com'])).toThrow(/--upstream-client-secret-env/);
    expect(() => proxyArgs(['--http', 'http://127.0.0.1:9/mcp', '--upstream-client-id', 'gw', '--upstream-client-secret-env', 'GW_SECRET'], { GW_SECRET: 's' })).toThrow(/--upstream-token-url or --upstream-issuer/);
    expect(() => proxyArgs(['--http', 'http://127.0.0.1:9/mcp', '--upstream-issuer', 'https://id.example.com'])).toThrow(/need --upstream-client-id/);
  });

  it('refuses what it does not understand', () => {
    expect(() => proxyArgs([])).toThrow(/Usage/);
    expect(() => proxyArgs(['--stdio', 'a', '--http', 'http://127.0.0.1:1/mcp'])).toThrow(/More than one unnamed upstream/);
    expect(() => proxyArgs(['--mount', 'nameless'])).toThrow(/name=/);
    expect(() => proxyArgs(['--stdio', 'a', '--port', 'x'])).toThrow(/Not a port/);
    expect(() => proxyArgs(['--stdio', 'a', '--frobnicate'])).toThrow(/Unknown arguments: --frobnicate/);
  });
});

describe('minimcp proxy', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGTERM');
  });

  const start = (...args: string[]) => new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev/cli.ts', 'proxy', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    child.stderr.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.once('exit', () => reject(new Error(`minimcp proxy exited:\n${out}`)));
  });

  it('serves a stdio server over HTTP', async () => {
    const url = await start('--stdio', `"${process.execPath}" ${EVERYTHING} stdio`);
    const client = await clientV1(url);
    try {
      expect((await client.callTool({ name: 'echo', arguments: { message: 'cli' } })).content).toEqual([{ type: 'text', text: 'Echo: cli' }]);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('with --auth-issuer, a request without a token is 401 pointing at the resource metadata', async () => {
    const url = await start('--mount', `everything=${process.execPath} ${EVERYTHING} stdio`, '--auth-issuer', 'https://issuer.invalid', '--auth-scopes', 'mcp:tools');
    const response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/resource_metadata=".*oauth-protected-resource/);
  }, 30_000);
});
