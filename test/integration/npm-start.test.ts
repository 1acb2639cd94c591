/** `npm start` is one server a supervisor can stop: after SIGTERM to npm nothing answers on its port. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { schemaErrors } from '../support/server-card-schema.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const post = (url: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: ping, signal: AbortSignal.timeout(2000) });

it('SIGTERM to `npm start` stops the server; no child keeps answering (and it served its Server Card)', async () => {
  const npm = spawn('npm', ['start'], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    npm.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    npm.once('exit', () => reject(new Error(`npm start exited early:\n${out}`)));
  });
  expect((await post(url)).status).toBe(200);
  // Its Server Card, valid against the published schema, built from the math server's own facts.
  const card = await fetch(`${url}/server-card`, { signal: AbortSignal.timeout(2000) });
  expect(card.headers.get('content-type')).toBe('application/mcp-server-card+json');
  const body = await card.json();
  expect(schemaErrors(body)).toEqual([]);
  expect(body).toMatchObject({ name: 'com.example/minimcp-math', version: '1.0.0', title: 'MiniMCP math', remotes: [{ url }] });
  expect(out).toContain(`Server card: ${url}/server-card`);
  const exited = new Promise((resolve) => npm.once('exit', resolve));
  npm.kill('SIGTERM');
  await exited;
  // The server closes its listener before it exits; poll briefly for a straggler that still answers.
  let answered = true;
  for (let i = 0; i < 20 && answered; i++) {
    answered = await post(url).then(() => true, () => false);
    if (answered) await new Promise((r) => setTimeout(r, 100));
  }
  expect(answered).toBe(false);
}, 30_000);
