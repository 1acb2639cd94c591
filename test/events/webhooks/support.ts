/**
 * What the webhook engine tests share: a receiver on 127.0.0.1 that records each request and answers
 * as a test says, a manual clock, fresh `whsec_` secrets, and a self-signed certificate made at test
 * time (openssl) for the https receiver.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../../src/events/webhooks/index.js';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers one request: a status, a body, or nothing at all (`hang`). */
export type Answer = { status: number; body?: string | Buffer; headers?: Record<string, string> } | 'hang' | 'flood' | 'trickle';

export interface Receiver {
  readonly port: number;
  readonly received: Received[];
  /** Connections made (a refused address check makes none). */
  readonly connections: number;
  /** TLS server names the clients asked for (SNI). */
  readonly servernames: string[];
  /** Bytes written by 'flood' answers before the client went away. */
  readonly flooded: number;
  close(): Promise<void>;
}

/** Answers a verification envelope with its challenge, everything else 204, unless `answer` says otherwise. */
export function echoChallenge(request: Received): Answer {
  const body = JSON.parse(request.body) as { type?: string; challenge?: string };
  return body.type === 'verification' ? { status: 200, body: JSON.stringify({ challenge: body.challenge }) } : { status: 204 };
}

export async function startReceiver(answer: (request: Received) => Answer = echoChallenge, tls?: { key: string; cert: string }): Promise<Receiver> {
  const received: Received[] = [];
  let connections = 0;
  let flooded = 0;
  const servernames: string[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const reply = answer(request);
      if (reply === 'hang') return;
      if (reply === 'flood') return flood(res, (n) => (flooded += n));
      if (reply === 'trickle') return void res.writeHead(200, { 'content-type': 'application/json' }).write('{'); // a 200 whose body never ends
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  server.on(tls ? 'secureConnection' : 'connection', (socket: { servername?: string | false }) => {
    connections++;
    if (typeof socket.servername === 'string') servernames.push(socket.servername);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    get connections() {
      return connections;
    },
    servernames,
    get flooded() {
      return flooded;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An endless 200 body: 64 KiB chunks for as long as the client reads. */
function flood(res: http.ServerResponse, count: (bytes: number) => void): void {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  res.writeHead(200, { 'content-type': 'application/json' });
  const write = (): void => {
    while (!res.destroyed) {
      count(chunk.length);
      if (!res.write(chunk)) return void res.once('drain', write);
    }
  };
  write();
}

/** A `whsec_` secret of `bytes` random bytes. */
export function secret(bytes = 32): string {
  return `whsec_${randomBytes(bytes).toString('base64')}`;
}

/** A clock the test moves: timers run when `advance` passes their time. Starts at the real now (receivers check freshness). */
export function manualClock(): Clock & { advance(ms: number): void; pending(): number; scheduled(): number[] } {
  let now = Date.now();
  let next = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout(run, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    advance(ms) {
      now += ms;
      for (const [id, timer] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (timer.at > now) continue;
        timers.delete(id);
        timer.run();
      }
    },
    pending: () => timers.size,
    /** When the pending timers are due (an engine's retry alarm shows here once the attempt settled). */
    scheduled: () => [...timers.values()].map((timer) => timer.at).sort((a, b) => a - b),
  };
}

/** A self-signed certificate for `host` (subjectAltName DNS), made with openssl now. */
export function selfSignedCertificate(host: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'minimcp-wh-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`], { stdio: 'ignore' });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until `check` holds (real time; for the network side only), failing after `ms`. */
export async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
