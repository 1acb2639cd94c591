/**
 * `npm run start:cluster` (scripts/cluster.mjs): Redis, three math members and nginx on one machine,
 * driven through the printed URL by both official clients; SIGTERM stops every process it started.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { clusterAvailable } from './support/cluster.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/cluster.mjs', import.meta.url));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!clusterAvailable())('npm run start:cluster', () => {
  it('starts Redis, 3 math members and nginx, serves both clients through the printed URL, and SIGTERM stops them all', async () => {
    const env = { ...process.env };
    delete env.REDIS_URL; // its own redis-server, so its stop can be checked
    const child = spawn(process.execPath, [SCRIPT], { env, stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    try {
      const deadline = Date.now() + 90_000;
      while (!/listening on (\S+)/.test(out)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`start:cluster did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const url = /listening on (\S+)/.exec(out)![1]!;
      const memberPids = [...out.matchAll(/member (\d+): http/g)].map((m) => Number(m[1]));
      expect(memberPids).toHaveLength(3);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

      const v1 = new ClientV1({ name: 'v1', version: '1' });
      await v1.connect(new TransportV1(new URL(url)));
      const v2 = new ClientV2({ name: 'v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
      await v2.connect(new TransportV2(new URL(url)));
      expect(v2.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      for (let i = 0; i < 6; i++) { // round-robin: every member serves both eras
        expect((await v1.callTool({ name: 'add', arguments: { a: i, b: 1 } })).structuredContent).toEqual({ result: i + 1 });
        expect((await v2.callTool({ name: 'multiply', arguments: { a: i, b: 2 } })).structuredContent).toEqual({ result: i * 2 });
      }
      await v1.close();
      await v2.close();

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      for (const pid of memberPids) expect(alive(pid)).toBe(false);
      const redisPort = Number(/on redis:\/\/127\.0\.0\.1:(\d+)/.exec(out)![1]);
      const refused = await new Promise<boolean>((resolve) => connect(redisPort, '127.0.0.1').once('connect', () => resolve(false)).once('error', () => resolve(true)));
      expect(refused).toBe(true); // redis-server is gone
      await expect(fetch(url)).rejects.toThrow(); // nginx is gone too
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
