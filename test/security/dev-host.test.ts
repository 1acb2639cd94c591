/**
 * Issue 24, finding 9: `minimcp dev` answers only the hosts and origins its /mcp endpoint accepts.
 * Before the fix the playground, `/__minimcp/events` (load errors: file paths and the source lines
 * around them) and the 503 of a server that failed to load answered any Host, so a DNS-rebinding
 * page on evil.example could read them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDev, type DevServer } from '../../src/dev/supervisor.js';

let dir: string;
let dev: DevServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'minimcp-dev-host-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  const file = join(dir, 'broken.mjs');
  writeFileSync(file, "const secret = 'line with a secret';\nthrow new Error('no database at /srv/private/db');\n");
  dev = await startDev({ file, port: 0, print: () => {} });
  // Wait until the load error is known, so the events stream would carry it.
  for (let i = 0; i < 300; i++) {
    const { body } = await get('/__minimcp/events', {}, true);
    if (body.includes('"error"')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One request with the headers a rebinding page's browser would send; the first chunk of an event stream is enough. */
function get(path: string, headers: Record<string, string>, firstChunk = false, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(dev.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port, path, method, headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (firstChunk) (resolve({ status: res.statusCode!, body }), req.destroy());
      });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"ping"}' : undefined);
  });
}

const EVIL: Record<string, string>[] = [{ host: 'evil.example' }, { host: 'evil.example:80' }, { origin: 'http://evil.example' }, { origin: 'null' }];

describe('minimcp dev: Host and Origin guard on every endpoint', () => {
  for (const [method, path] of [['GET', '/__minimcp/events'], ['GET', '/'], ['POST', '/mcp'], ['GET', '/nothing-here']] as const) {
    it(`${method} ${path}: 403 for a foreign Host or Origin, with nothing of the server in it`, async () => {
      for (const headers of EVIL) {
        const { status, body } = await get(path, headers, path === '/__minimcp/events', method);
        expect(status, JSON.stringify(headers)).toBe(403);
        expect(body).not.toContain('no database');
        expect(body).not.toContain('secret');
      }
    });
  }

  it('the loopback names still reach the playground and its events', async () => {
    const port = new URL(dev.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      expect((await get('/', { host })).status).toBe(200);
      const events = await get('/__minimcp/events', { host, origin: `http://${host}` }, true);
      expect(events.status).toBe(200);
      expect(events.body).toContain('no database');
    }
  });
});
