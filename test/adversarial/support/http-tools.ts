/** Small HTTP/1.1 client helpers for the adversarial tests: full control over headers and sockets. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: string;
}

/** One request with exactly the headers given (Host included), body as bytes or JSON. */
export function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown; agent?: Agent } = {}): Promise<Reply> {
  const { method = 'POST', headers = JSON_HEADERS, body, agent } = options;
  const payload = body === undefined ? undefined : body instanceof Uint8Array || typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A raw TCP connection to the server of `url`. */
export function socketTo(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves when the socket is closed by the other side (or after `ms`, with false). */
export function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** An open streaming request: resolves once the response has started and `until` matched its text. */
export function openStream(url: string, headers: Record<string, string>, body: unknown, until: (text: string) => boolean, agent?: Agent) {
  return new Promise<{ req: ReturnType<typeof httpRequest>; res: IncomingMessage; text: () => string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: agent ?? false }, (res) => {
      let text = '';
      let done = false;
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (!done && until(text)) {
          done = true;
          resolve({ req, res, text: () => text });
        }
      });
      res.on('error', () => {});
      res.on('end', () => {
        if (!done) reject(new Error(`stream ended before the condition: ${res.statusCode} ${text.slice(0, 200)}`));
      });
    });
    req.on('error', (e) => reject(e));
    req.end(JSON.stringify(body));
  });
}

/** VmRSS of a process in bytes, from /proc. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Starts test/adversarial/fixtures/http-server.ts as its own process. */
export async function startHttpChild(env: Record<string, string> = {}): Promise<{ url: string; statsUrl: string; pid: number; child: ChildProcessWithoutNullStreams; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, '../fixtures/http-server.ts')], {
    cwd: join(here, '../../..'),
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`http child exited ${code}: ${stderr}`)));
  });
  const { url, statsUrl, pid } = JSON.parse(first) as { url: string; statsUrl: string; pid: number };
  return {
    url,
    statsUrl,
    pid,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The child's counters, from its side server. */
export async function statsOf(statsUrl: string): Promise<{ subscribers: number; running: number; aborted: number; rss: number; heapUsed: number }> {
  const r = await send(statsUrl, { method: 'GET', headers: {} });
  return JSON.parse(r.body);
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
