/** Driving one fuzz case through `handle()`, and the checks that follow every case. */
import type { Connection } from '../../../src/transport.js';
import type { MiniMCP } from '../../../src/index.js';
import { checkReply, expectationOf, installCrashTrap, knownBugOf, parse, short, type CrashTrap, type Tally } from './oracle.js';
import { MODERN_VERSION, modernMeta } from './messages.js';
import { afterAll, beforeAll, vi } from 'vitest';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const SIMPLE_TEXT = 'This is a simple text response for testing.';

/** A valid `tools/call` of test_simple_text must still work after every case (both eras). */
export async function stillServes(mcp: MiniMCP, n: number): Promise<string[]> {
  const modern = n % 2 === 1;
  const params = modern
    ? { name: 'test_simple_text', arguments: {}, _meta: modernMeta() }
    : { name: 'test_simple_text', arguments: {} };
  const reply = (await mcp.handle({ jsonrpc: '2.0', id: `probe-${n}`, method: 'tools/call', params })) as Record<string, any> | undefined;
  const text = reply?.result?.content?.[0]?.text;
  return text === SIMPLE_TEXT ? [] : [`the probe call after the case failed: ${short(reply)}`];
}

/**
 * A stand-in client for `send`: records what the server sent and declines every server-to-client
 * request (elicitation, sampling, roots) with an error response, so 2025 handlers never wait for a person.
 */
export function fakeClient(mcp: MiniMCP, problems: string[]) {
  const sent: unknown[] = [];
  const send = (message: unknown) => {
    sent.push(message);
    if (!isObject(message) || typeof message.method !== 'string') {
      problems.push(`send() carried something that is not a request or notification: ${short(message)}`);
      return;
    }
    if ('id' in message) {
      const answer = { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'the fuzz client declines' } };
      queueMicrotask(() => {
        mcp.handle(answer).then(
          (r) => r !== undefined && problems.push(`the answer to a server request was itself answered: ${short(r)}`),
          (e) => problems.push(`handle() rejected an answer: ${String(e)}`),
        );
      });
    }
  };
  return { sent, send };
}

export interface HandleCaseOptions {
  send?: (message: any) => void;
  connection?: Connection;
  /** A reply must arrive within this (the fixture's handlers finish in milliseconds). */
  hangMs?: number;
}

/**
 * Runs one input through handle() and applies the oracle. A `subscriptions/listen` stream is ended by
 * aborting its signal after 20 ms (that is how a client closes it), which must produce its one reply.
 */
export async function handleCase(mcp: MiniMCP, input: string | object, tally: Tally, options: HandleCaseOptions = {}): Promise<string[]> {
  const text = typeof input === 'string' ? input : safeStringify(input);
  const parsed = typeof input === 'string' ? parse(input) : { ok: true as const, value: input };
  const message = parsed.ok ? parsed.value : undefined;
  const expected = expectationOf(parsed);
  const controller = new AbortController();
  const listen = isObject(message) && message.method === 'subscriptions/listen';
  const stopListen = listen ? setTimeout(() => controller.abort(new Error('client closed the stream')), 20) : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), options.hangMs ?? 5_000)));
  tally.cases++;
  let outcome: unknown;
  try {
    outcome = await Promise.race([
      mcp.handle(input, { send: options.send, connection: options.connection, signal: controller.signal }),
      hang,
    ]);
  } catch (error) {
    return [`handle() rejected: ${String(error)}`];
  } finally {
    clearTimeout(timer);
    clearTimeout(stopListen);
  }
  if (outcome === 'hang') {
    tally.hangs++;
    return [`no reply within ${options.hangMs ?? 5_000} ms`];
  }
  let reply: unknown = outcome;
  if (typeof input === 'string' && typeof outcome === 'string') {
    const back = parse(outcome);
    if (!back.ok) return [`the reply is not JSON: ${short(outcome)}`];
    reply = back.value;
  } else if (typeof input === 'string' && outcome !== undefined) {
    return [`a string input got a ${typeof outcome} reply`];
  }
  if (reply === undefined) tally.silent++;
  else tally.replies++;
  if (isObject(reply) && isObject(reply.error)) tally.code(reply.error.code);
  const problems = checkReply(reply, expected, text, message);
  if (problems.length) {
    const bug = knownBugOf(message);
    if (bug) {
      tally.bug(bug);
      return [];
    }
  }
  return problems;
}

export function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

export const MODERN = MODERN_VERSION;

/**
 * What every fuzz file installs: a crash trap (unhandled rejections and uncaught exceptions) for the
 * whole file, and the server log (console.error) counted instead of printed.
 */
export function guardFuzzFile(): { readonly errors: unknown[]; serverLogLines(): number } {
  const serverLog = vi.spyOn(console, 'error').mockImplementation(() => {});
  let trap: CrashTrap | undefined;
  beforeAll(() => {
    trap = installCrashTrap();
  });
  afterAll(() => {
    trap?.dispose();
    serverLog.mockRestore();
  });
  return {
    get errors() {
      return trap?.errors ?? [];
    },
    serverLogLines: () => serverLog.mock.calls.length,
  };
}
