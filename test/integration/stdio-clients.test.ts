/**
 * The math example over stdio as a REAL child process, driven by clients we did not write:
 *  1. @modelcontextprotocol/sdk v1 (Client + StdioClientTransport): the 2025 initialize era.
 *  2. @modelcontextprotocol/client v2, in each of its version-negotiation modes. The default mode
 *     ('legacy') runs initialize; 'auto' and { pin: '2026-07-28' } probe with server/discover and then
 *     speak 2026-07-28 (per-request _meta, no initialize). Each test states the era it asserts.
 *  3. Raw protocol checks: lines written to the child's stdin, lines read from its stdout.
 *
 * Every child we (or an SDK transport) spawned is tracked and SIGKILLed in afterEach/afterAll if still
 * alive. The v2 'auto'/pin probe sibling is spawned and reaped by the SDK; a test asserts it is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, ProtocolError, type ClientOptions as ClientOptionsV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MATH_STDIO = 'examples/math/stdio.ts';
const RECORDING_MATH = 'test/integration/servers/recording-math.ts';
const NOISY_MATH = 'test/integration/servers/noisy-math.ts';
const NODE = process.execPath; // the same `node` that runs the tests
const serverArgs = (script: string): string[] => ['--import', 'tsx', script];

// Hang detectors, not speed checks: a tsx child takes about 5 s to start on a loaded 2-core machine.
const TEST_TIMEOUT = 30_000;
/** A stdio server SHOULD exit promptly at stdin EOF; the SDKs escalate to SIGTERM after 2 s. */
const EXIT_BUDGET_MS = 2_000;

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const modernMeta = { [META_VERSION]: MODERN, [META_CAPS]: {} };

const PI_URI = 'math://constants/pi';
const TABLE_TEMPLATE = 'math://tables/{n}';
const TOOL_NAMES = ['add', 'subtract', 'multiply', 'divide'];
const ALL_COMPLETIONS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', '12'];

// ---- child bookkeeping --------------------------------------------------------------------------

/** Children spawned inside one test (killed after it) and by a describe's beforeAll (killed after the describe). */
const testChildren = new Set<ChildProcess>();
const suiteChildren = new Set<ChildProcess>();
let inSuiteSetup = false;

const alive = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;
const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function kill(children: Set<ChildProcess>): void {
  for (const child of children) {
    if (alive(child)) child.kill('SIGKILL');
    children.delete(child);
  }
}

function killTestChildren(): void {
  kill(testChildren);
}

function killAll(): void {
  killTestChildren();
  kill(suiteChildren);
}

function track(child: ChildProcess): ChildProcess {
  (inSuiteSetup ? suiteChildren : testChildren).add(child);
  return child;
}

/** Runs a describe's beforeAll body; children it spawns live until that describe's afterAll. */
async function suiteSetup(body: () => Promise<void>): Promise<void> {
  inSuiteSetup = true;
  try {
    await body();
  } finally {
    inSuiteSetup = false;
  }
}

afterEach(killTestChildren);
afterAll(killAll);

/** Resolves when the child exits, with its code, signal and the time since `since`. */
function exitOf(child: ChildProcess, since: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  if (!alive(child)) return Promise.resolve({ code: child.exitCode, signal: child.signalCode, ms: performance.now() - since });
  return new Promise((done) => child.once('exit', (code, signal) => done({ code, signal, ms: performance.now() - since })));
}

/** The ChildProcess an SDK stdio transport spawned (private field of both SDK versions). */
function childOf(transport: object): ChildProcess {
  const child = (transport as { _process?: ChildProcess })._process;
  if (!child) throw new Error('the SDK transport exposes no child process (did its private _process field move?)');
  return track(child);
}

// ---- wire tap on an SDK transport -----------------------------------------------------------------

interface Wire {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

interface Tap {
  sent: Wire[];
  received: Wire[];
  /** The response to the request `method` we sent last. */
  responseTo(method: string): Wire | undefined;
  /** Every response to a `method` request. */
  responsesTo(method: string): Wire[];
}

/** Records what the client sends and receives, without changing the transport's class. */
function tap(transport: object): Tap {
  const t = transport as {
    send: (message: unknown, options?: unknown) => Promise<void>;
    onmessage?: (message: unknown, extra?: unknown) => void;
  };
  const sent: Wire[] = [];
  const received: Wire[] = [];
  const send = t.send.bind(t);
  t.send = (message, options) => {
    sent.push(structuredClone(message) as Wire);
    return send(message, options);
  };
  let handler: ((message: unknown, extra?: unknown) => void) | undefined;
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () =>
      handler &&
      ((message: unknown, extra?: unknown) => {
        received.push(structuredClone(message) as Wire);
        handler?.(message, extra);
      }),
    set: (value: typeof handler) => (handler = value),
  });
  return {
    sent,
    received,
    responseTo(method) {
      const request = sent.filter((m) => m.method === method && m.id !== undefined).at(-1);
      return request && received.find((m) => m.id === request.id && (m.result !== undefined || m.error !== undefined));
    },
    responsesTo(method) {
      const ids = new Set(sent.filter((m) => m.method === method && m.id !== undefined).map((m) => m.id));
      return received.filter((m) => ids.has(m.id) && (m.result !== undefined || m.error !== undefined));
    },
  };
}

interface RpcFailure {
  code: number;
  data: unknown;
  message: string;
  /** What the client threw. */
  thrown: unknown;
}

/** The JSON-RPC error the promise failed with; throws if it succeeded. */
async function rpcError(promise: Promise<unknown>): Promise<RpcFailure> {
  try {
    await promise;
  } catch (thrown) {
    const e = thrown as { code?: unknown; data?: unknown; message?: string };
    return { code: typeof e.code === 'number' ? e.code : NaN, data: e.data, message: e.message ?? '', thrown };
  }
  throw new Error('expected the request to fail, but it succeeded');
}

const textOf = (content: unknown): string =>
  (content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');

// =================================================================================================
// 1. @modelcontextprotocol/sdk v1
// =================================================================================================

describe('official SDK v1 client over stdio (2025 era: initialize)', { timeout: TEST_TIMEOUT }, () => {
  let client: ClientV1;
  let transport: StdioTransportV1;
  let wire: Tap;
  let stderr = '';

  beforeAll(() =>
    suiteSetup(async () => {
      transport = new StdioTransportV1({ command: NODE, args: serverArgs(MATH_STDIO), cwd: ROOT, stderr: 'pipe' });
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      wire = tap(transport);
      client = new ClientV1({ name: 'sdk-v1-test', version: '1.0.0' });
      await client.connect(transport);
      childOf(transport);
    }), TEST_TIMEOUT);

  afterAll(async () => {
    await client?.close().catch(() => {});
    killAll();
  });

  it('initializes: 2025-11-25, server info, instructions and capabilities', () => {
    const init = wire.responseTo('initialize');
    expect(init?.result?.protocolVersion).toBe(LEGACY);
    expect(init?.result).not.toHaveProperty('resultType'); // 2025 results carry no 2026 fields
    expect(client.getServerVersion()).toMatchObject({ name: 'minimcp-math', version: '1.0.0' });
    expect(client.getInstructions()).toMatch(/divid/i);
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {}, logging: {} });
    expect(wire.sent.map((m) => m.method).slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
  });

  it('lists the four tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: expect.arrayContaining(['a', 'b']),
      });
      expect(tool.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'number' } } });
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    }
    expect(wire.responseTo('tools/list')?.result).not.toHaveProperty('ttlMs');
  });

  it('calls add: structuredContent {result: 3} and a text block', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ result: 3 });
    expect(textOf(result.content)).toContain('3');
    expect(JSON.parse(textOf(result.content))).toEqual({ result: 3 });
  });

  it('calls the other tools', async () => {
    expect((await client.callTool({ name: 'subtract', arguments: { a: 10, b: 4 } })).structuredContent).toEqual({ result: 6 });
    expect((await client.callTool({ name: 'multiply', arguments: { a: 6, b: 7 } })).structuredContent).toEqual({ result: 42 });
    expect((await client.callTool({ name: 'divide', arguments: { a: 1, b: 4 } })).structuredContent).toEqual({ result: 0.25 });
  });

  it('divide by zero is a tool error (isError), not a protocol error', async () => {
    const result = await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).toMatch(/zero/i);
  });

  it('invalid arguments are a tool error (isError)', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 'one', b: 2 } });
    expect(result.isError).toBe(true);
    expect(textOf(result.content)).not.toBe('');
    const missing = await client.callTool({ name: 'add', arguments: { a: 1 } });
    expect(missing.isError).toBe(true);
  });

  it('an unknown tool is McpError -32602', async () => {
    const error = await rpcError(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(error.thrown).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('no_such_tool');
  });

  it('lists and gets the prompt; the message contains the problem', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({
      name: 'solve_step_by_step',
      arguments: [expect.objectContaining({ name: 'problem', required: true })],
    });
    const problem = 'What is (17 + 25) / 6?';
    const result = await client.getPrompt({ name: 'solve_step_by_step', arguments: { problem } });
    expect(result.messages.length).toBeGreaterThan(0);
    expect(result.messages[0]?.role).toBe('user');
    expect(result.messages[0]?.content).toMatchObject({ type: 'text', text: expect.stringContaining(problem) });
  });

  it('a missing required prompt argument is -32602; an unknown prompt is -32602', async () => {
    const missing = await rpcError(client.getPrompt({ name: 'solve_step_by_step', arguments: {} }));
    expect(missing.code).toBe(-32602);
    const unknown = await rpcError(client.getPrompt({ name: 'no_such_prompt' }));
    expect(unknown.code).toBe(-32602);
  });

  it('lists and reads the pi resource', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: PI_URI, name: 'pi', mimeType: 'text/plain' })]);
    const read = await client.readResource({ uri: PI_URI });
    expect(read.contents).toEqual([expect.objectContaining({ uri: PI_URI, mimeType: 'text/plain', text: String(Math.PI) })]);
  });

  it('lists the template and reads math://tables/7', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: TABLE_TEMPLATE, name: 'multiplication-table' })]);
    const read = await client.readResource({ uri: 'math://tables/7' });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; text: string };
    expect(content.uri).toBe('math://tables/7');
    expect(content.text.split('\n')).toHaveLength(10);
    expect(content.text).toContain('7 x 1 = 7');
    expect(content.text).toContain('7 x 10 = 70');
  });

  it('a missing resource is -32602 with data.uri', async () => {
    const error = await rpcError(client.readResource({ uri: 'math://tables/0' }));
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ uri: 'math://tables/0' });
    const unknown = await rpcError(client.readResource({ uri: 'math://nothing/here' }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.data).toMatchObject({ uri: 'math://nothing/here' });
  });

  it('completes the template variable n', async () => {
    const ref = { type: 'ref/resource' as const, uri: TABLE_TEMPLATE };
    const one = await client.complete({ ref, argument: { name: 'n', value: '1' } });
    expect(one.completion.values).toEqual(['10', '12']);
    const all = await client.complete({ ref, argument: { name: 'n', value: '' } });
    expect(all.completion.values).toEqual(ALL_COMPLETIONS);
  });

  it('ping and logging/setLevel answer with an empty result; a bad level is -32602', async () => {
    await expect(client.ping()).resolves.toEqual({});
    await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
    const bad = await rpcError(client.setLoggingLevel('loud' as 'debug'));
    expect(bad.code).toBe(-32602);
  });

  it('nothing went wrong on stderr: divide by zero is a UserError, an answer to the model, not a fault to log', () => {
    expect(stderr).not.toMatch(/Error|failed/);
  });

  it('close(): the child sees stdin EOF and exits with code 0 by itself', async () => {
    const t = new StdioTransportV1({ command: NODE, args: serverArgs(MATH_STDIO), cwd: ROOT, stderr: 'pipe' });
    const c = new ClientV1({ name: 'sdk-v1-close', version: '1.0.0' });
    await c.connect(t);
    const child = childOf(t);
    await c.callTool({ name: 'add', arguments: { a: 2, b: 2 } });
    const since = performance.now();
    const exited = exitOf(child, since);
    await c.close();
    const { code, signal, ms } = await exited;
    expect(signal).toBeNull(); // the SDK did not have to SIGTERM it
    expect(code).toBe(0);
    expect(ms).toBeLessThan(EXIT_BUDGET_MS);
  });
});

// =================================================================================================
// 2. @modelcontextprotocol/client v2
// =================================================================================================

interface V2Mode {
  label: string;
  options: ClientOptionsV2;
  era: 'legacy' | 'modern';
  version: string;
}

const V2_MODES: V2Mode[] = [
  { label: 'default options (mode "legacy")', options: {}, era: 'legacy', version: LEGACY },
  { label: 'versionNegotiation mode "auto"', options: { versionNegotiation: { mode: 'auto' } }, era: 'modern', version: MODERN },
  { label: `versionNegotiation pin ${MODERN}`, options: { versionNegotiation: { mode: { pin: MODERN } } }, era: 'modern', version: MODERN },
];

describe.each(V2_MODES)('official client v2 over stdio, $label → $era era ($version)', { timeout: TEST_TIMEOUT }, (mode) => {
  let client: ClientV2;
  let transport: StdioTransportV2;
  let wire: Tap;

  beforeAll(() =>
    suiteSetup(async () => {
      transport = new StdioTransportV2({ command: NODE, args: serverArgs(MATH_STDIO), cwd: ROOT, stderr: 'pipe' });
      wire = tap(transport);
      client = new ClientV2({ name: 'client-v2-test', version: '2.0.0' }, mode.options);
      await client.connect(transport);
      childOf(transport);
    }), TEST_TIMEOUT);

  afterAll(async () => {
    await client?.close().catch(() => {});
    killAll();
  });

  it(`negotiates the ${mode.era} era at ${mode.version}`, () => {
    expect(client.getProtocolEra()).toBe(mode.era);
    expect(client.getNegotiatedProtocolVersion()).toBe(mode.version);
    expect(client.getServerVersion()).toMatchObject({ name: 'minimcp-math', version: '1.0.0' });
    expect(client.getInstructions()).toMatch(/divid/i);
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {} });
    const methods = wire.sent.map((m) => m.method);
    if (mode.era === 'legacy') {
      expect(methods.slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
      expect(wire.sent[0]?.params?.protocolVersion).toBe(LEGACY);
      expect(wire.responseTo('initialize')?.result?.protocolVersion).toBe(LEGACY);
      expect(client.getDiscoverResult()).toBeUndefined();
    } else {
      // The discover probe ran on a disposable sibling process; this session never initialized.
      expect(methods).not.toContain('initialize');
      expect(methods).not.toContain('notifications/initialized');
      expect(client.getDiscoverResult()).toMatchObject({
        supportedVersions: expect.arrayContaining([MODERN]),
        capabilities: { tools: {} },
        _meta: { [META_SERVER_INFO]: { name: 'minimcp-math' } },
      });
    }
  });

  it('lists tools, calls add, divide by zero, invalid arguments, unknown tool', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
      expect(tool.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'number' } } });
    }
    const add = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(add.isError ?? false).toBe(false);
    expect(add.structuredContent).toEqual({ result: 3 });
    expect(textOf(add.content)).toContain('3');

    const zero = await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
    expect(zero.isError).toBe(true);
    expect(textOf(zero.content)).toMatch(/zero/i);

    const invalid = await client.callTool({ name: 'multiply', arguments: { a: 'x', b: 2 } });
    expect(invalid.isError).toBe(true);

    const unknown = await rpcError(client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(ProtocolError.isInstance(unknown.thrown)).toBe(true);
    expect(unknown.code).toBe(-32602);
  });

  it('lists and gets the prompt; a missing argument is -32602', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['solve_step_by_step']);
    const problem = 'How much is 12 * 12?';
    const result = await client.getPrompt({ name: 'solve_step_by_step', arguments: { problem } });
    expect(result.messages[0]?.content).toMatchObject({ type: 'text', text: expect.stringContaining(problem) });
    const missing = await rpcError(client.getPrompt({ name: 'solve_step_by_step', arguments: {} }));
    expect(missing.code).toBe(-32602);
  });

  it('lists and reads resources and templates; not found is -32602 with data.uri', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([PI_URI]);
    const pi = await client.readResource({ uri: PI_URI });
    expect(pi.contents[0]).toMatchObject({ uri: PI_URI, text: String(Math.PI) });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([TABLE_TEMPLATE]);
    const table = await client.readResource({ uri: 'math://tables/7' });
    expect(table.contents[0]).toMatchObject({ uri: 'math://tables/7', text: expect.stringContaining('7 x 10 = 70') });

    const error = await rpcError(client.readResource({ uri: 'math://tables/0' }));
    expect(ProtocolError.isInstance(error.thrown)).toBe(true);
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ uri: 'math://tables/0' });
  });

  it('completes the template variable n', async () => {
    const result = await client.complete({ ref: { type: 'ref/resource', uri: TABLE_TEMPLATE }, argument: { name: 'n', value: '1' } });
    expect(result.completion.values).toEqual(['10', '12']);
  });

  if (mode.era === 'legacy') {
    it('ping and logging/setLevel (2025 only)', async () => {
      await expect(client.ping()).resolves.toEqual({});
      await expect(client.setLoggingLevel('info')).resolves.toEqual({});
    });
  }

  it(`the wire shows the ${mode.era} era on every request and result`, () => {
    const requests = wire.sent.filter((m) => m.method !== undefined && m.id !== undefined);
    const results = wire.received.filter((m) => m.result !== undefined);
    expect(requests.length).toBeGreaterThan(10);
    expect(results.length).toBeGreaterThan(10);
    if (mode.era === 'modern') {
      for (const request of requests) {
        expect(request.params?._meta, request.method).toMatchObject({ [META_VERSION]: MODERN, [META_CAPS]: expect.any(Object) });
      }
      for (const response of results) expect(response.result?.resultType, JSON.stringify(response)).toBe('complete');
      for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']) {
        const results = wire.responsesTo(method).filter((m) => m.result !== undefined);
        expect(results.length, method).toBeGreaterThan(0);
        for (const { result } of results) {
          expect(Number.isInteger(result?.ttlMs) && (result?.ttlMs as number) >= 0, method).toBe(true);
          expect(['public', 'private'], method).toContain(result?.cacheScope);
        }
      }
    } else {
      for (const request of requests) expect(request.params?._meta?.[META_VERSION], request.method).toBeUndefined();
      for (const response of results) expect(response.result, JSON.stringify(response)).not.toHaveProperty('resultType');
    }
  });

  it('what each spawned server process read on stdin (probe sibling vs session)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'minimcp-stdin-'));
    try {
      const t = new StdioTransportV2({
        command: NODE,
        args: serverArgs(RECORDING_MATH),
        cwd: ROOT,
        stderr: 'pipe',
        env: { MINIMCP_STDIN_LOG_DIR: dir },
      });
      const c = new ClientV2({ name: 'client-v2-recorded', version: '2.0.0' }, mode.options);
      await c.connect(t);
      const session = childOf(t);
      await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
      const exited = exitOf(session, performance.now());
      await c.close();
      const exit = await exited;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.ms).toBeLessThan(EXIT_BUDGET_MS);

      const logs = readdirSync(dir).map((file) => {
        const pid = Number(file.replace('.log', ''));
        const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
        return { pid, messages: lines.map((line) => JSON.parse(line) as Wire) };
      });
      const sessionLog = logs.find((l) => l.pid === session.pid);
      expect(sessionLog, 'the session process log').toBeDefined();
      const sessionMethods = sessionLog!.messages.map((m) => m.method);
      const probes = logs.filter((l) => l.pid !== session.pid);
      if (mode.era === 'legacy') {
        expect(probes).toEqual([]); // one process, no probe
        expect(sessionMethods.slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
        expect(sessionMethods).not.toContain('server/discover');
      } else {
        expect(probes).toHaveLength(1); // the disposable discover sibling
        expect(probes[0]!.messages.map((m) => m.method)).toEqual(['server/discover']);
        expect(probes[0]!.messages[0]!.params?._meta).toMatchObject({ [META_VERSION]: MODERN });
        expect(sessionMethods).not.toContain('initialize');
        expect(sessionMethods).toContain('tools/call');
        for (const m of sessionLog!.messages.filter((m) => m.id !== undefined)) {
          expect(m.params?._meta?.[META_VERSION]).toBe(MODERN);
        }
      }
      // The SDK reaps its probe sibling itself (we never signal a pid we did not spawn).
      for (const probe of probes) expect(pidAlive(probe.pid)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// =================================================================================================
// 3. Raw protocol over the real child process
// =================================================================================================

/** A child server driven line by line. */
class RawServer {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  /** Lines that are not JSON-RPC 2.0 JSON. */
  readonly badLines: string[] = [];
  readonly messages: Wire[] = [];
  stderr = '';
  readonly #consumed = new Set<number>();
  #waiters: (() => void)[] = [];
  #buffer = '';
  #nextId = 1;

  constructor(script = MATH_STDIO) {
    this.child = spawn(NODE, serverArgs(script), { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    track(this.child);
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let nl: number;
      while ((nl = this.#buffer.indexOf('\n')) >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        this.#onLine(line);
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.stdin!.on('error', () => {}); // EPIPE after exit is the test's business, not a crash
  }

  #onLine(line: string): void {
    this.lines.push(line);
    try {
      const message = JSON.parse(line) as Wire;
      if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') this.badLines.push(line);
      else this.messages.push(message);
    } catch {
      this.badLines.push(line);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Trailing stdout bytes without a newline (must be empty at exit). */
  get partial(): string {
    return this.#buffer;
  }

  write(data: string | Buffer): void {
    this.child.stdin!.write(data);
  }

  send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  newId(): number {
    return this.#nextId++;
  }

  /** The first not-yet-consumed message matching `predicate`. */
  async waitFor(predicate: (m: Wire) => boolean, what: string, timeoutMs = 15_000): Promise<Wire> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex((m, i) => !this.#consumed.has(i) && predicate(m));
      if (index >= 0) {
        this.#consumed.add(index);
        return this.messages[index]!;
      }
      const left = deadline - performance.now();
      if (left <= 0 || !alive(this.child)) {
        throw new Error(`no ${what} within ${timeoutMs} ms (child alive: ${alive(this.child)}); got:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      }
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  response(id: string | number): Promise<Wire> {
    return this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined), `response to id ${id}`);
  }

  async request(method: string, params?: object): Promise<Wire> {
    const id = this.newId();
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.response(id);
  }

  /** A 2026-07-28 request: no handshake, the envelope in params._meta. */
  modern(method: string, params: object = {}): Promise<Wire> {
    return this.request(method, { ...params, _meta: modernMeta });
  }

  async initialize(): Promise<Wire> {
    const reply = await this.request('initialize', {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '1.0.0' },
    });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return reply;
  }

  /** Closes stdin and resolves when the child exits. */
  endStdin(): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const exited = exitOf(this.child, performance.now());
    this.child.stdin!.end();
    return exited;
  }

  /** After exit: stdout was JSON-RPC only, with nothing left unterminated. */
  expectCleanStdout(): void {
    expect(this.badLines).toEqual([]);
    expect(this.partial).toBe('');
    expect(this.lines.length).toBe(this.messages.length);
  }
}

describe('raw protocol over the real child process', { timeout: TEST_TIMEOUT }, () => {
  it('serves a 2025 initialize session and 2026 _meta requests on the same stream', async () => {
    const raw = new RawServer();
    const init = await raw.initialize();
    expect(init.result).toMatchObject({ protocolVersion: LEGACY, serverInfo: { name: 'minimcp-math' }, capabilities: { tools: {} } });

    const legacyList = await raw.request('tools/list', {});
    expect((legacyList.result!.tools as unknown[]).length).toBe(4);
    expect(legacyList.result).not.toHaveProperty('resultType');

    const discover = await raw.modern('server/discover');
    expect(discover.error).toBeUndefined();
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining([MODERN]),
      capabilities: { tools: {}, prompts: {}, resources: {} },
      _meta: { [META_SERVER_INFO]: { name: 'minimcp-math', version: '1.0.0' } },
    });
    expect(Number.isInteger(discover.result?.ttlMs)).toBe(true);
    expect(['public', 'private']).toContain(discover.result?.cacheScope);
    expect(discover.result).not.toHaveProperty('serverInfo'); // 2026: serverInfo lives in _meta only

    const modernList = await raw.modern('tools/list');
    expect(modernList.result).toMatchObject({ resultType: 'complete', cacheScope: expect.stringMatching(/^(public|private)$/) });
    expect(Number.isInteger(modernList.result?.ttlMs)).toBe(true);
    expect((modernList.result!.tools as { name: string }[]).map((t) => t.name)).toEqual(TOOL_NAMES);

    const call = await raw.modern('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    expect(call.result).toMatchObject({ resultType: 'complete', structuredContent: { result: 3 } });
    const notFound = await raw.modern('resources/read', { uri: 'math://tables/0' });
    expect(notFound.error).toMatchObject({ code: -32602, data: { uri: 'math://tables/0' } });

    // And the 2025 session still works after the 2026 traffic.
    const legacyCall = await raw.request('tools/call', { name: 'multiply', arguments: { a: 3, b: 4 } });
    expect(legacyCall.result).toMatchObject({ structuredContent: { result: 12 } });
    expect(legacyCall.result).not.toHaveProperty('resultType');

    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('2026 without any initialize: discover, then an unsupported version is -32022', async () => {
    const raw = new RawServer();
    const discover = await raw.modern('server/discover');
    expect(discover.result?.supportedVersions).toContain(MODERN);
    const id = raw.newId();
    raw.send({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: { [META_VERSION]: 'v999.0.0', [META_CAPS]: {} } } });
    const unsupported = await raw.response(id);
    expect(unsupported.error).toMatchObject({ code: -32022, data: { requested: 'v999.0.0', supported: expect.arrayContaining([MODERN]) } });
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('an invalid JSON line is -32700 with id null, and the next request is still answered', async () => {
    const raw = new RawServer();
    raw.write('{"jsonrpc":"2.0","id":1,"method":\n');
    const parseError = await raw.waitFor((m) => m.error !== undefined, 'parse error');
    expect(parseError).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    raw.write('this is not json at all\n');
    const second = await raw.waitFor((m) => m.error !== undefined, 'second parse error');
    expect(second).toMatchObject({ id: null, error: { code: -32700 } });

    const next = await raw.modern('tools/call', { name: 'add', arguments: { a: 40, b: 2 } });
    expect(next.result).toMatchObject({ structuredContent: { result: 42 } });
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('an invalid UTF-8 line is -32700, and the stream goes on', async () => {
    const raw = new RawServer();
    // Valid JSON framing, but 0xff 0xfe inside the string is not UTF-8.
    const prefix = Buffer.from('{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"x":"');
    raw.write(Buffer.concat([prefix, Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}\n')]));
    const parseError = await raw.waitFor((m) => m.error !== undefined, 'parse error');
    expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
    // The bad line was not half-handled: nothing answers id 77.
    const next = await raw.modern('tools/call', { name: 'subtract', arguments: { a: 5, b: 3 } });
    expect(next.result).toMatchObject({ structuredContent: { result: 2 } });
    expect(raw.messages.some((m) => m.id === 77)).toBe(false);
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('framing: CRLF, blank lines, several messages per write, a message split across writes, UTF-8 split mid-character', async () => {
    const raw = new RawServer();
    await raw.initialize();
    // Two requests in one write, the first CRLF-terminated, with blank lines around.
    raw.write('\n\r\n{"jsonrpc":"2.0","id":"a","method":"ping"}\r\n{"jsonrpc":"2.0","id":"b","method":"tools/list"}\n\n');
    expect((await raw.response('a')).result).toEqual({});
    expect(((await raw.response('b')).result!.tools as unknown[]).length).toBe(4);

    // One request split over three writes with pauses; its text holds multi-byte characters and the
    // split lands inside a 4-byte character.
    const problem = 'Is √2 · π ≈ 4.44? 𝜋 and € too';
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 'c', method: 'prompts/get', params: { name: 'solve_step_by_step', arguments: { problem } } })}\n`);
    const cut = bytes.indexOf(Buffer.from('𝜋')) + 2;
    raw.write(bytes.subarray(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    raw.write(bytes.subarray(10, cut));
    await new Promise((r) => setTimeout(r, 50));
    raw.write(bytes.subarray(cut));
    const prompt = await raw.response('c');
    expect(prompt.error).toBeUndefined();
    const messages = prompt.result?.messages as { content: { text: string } }[];
    expect(messages[0]?.content.text).toContain(problem);

    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
    // Exactly: initialize + a + b + c; blank lines got no answer (no -32700/-32600 noise).
    expect(raw.messages.map((m) => m.id)).toEqual([1, 'a', 'b', 'c']);
  });

  it('JSON that is not a JSON-RPC request is -32600; 2026 removed methods are -32601', async () => {
    const raw = new RawServer();
    raw.write('42\n');
    expect(await raw.waitFor((m) => m.error !== undefined, 'error for 42')).toMatchObject({ id: null, error: { code: -32600 } });
    raw.write('[{"jsonrpc":"2.0","id":5,"method":"ping"}]\n'); // batches left JSON-RPC for MCP in 2025-06-18
    expect(await raw.waitFor((m) => m.error !== undefined, 'error for a batch')).toMatchObject({ id: null, error: { code: -32600 } });
    raw.send({ id: 'no-version', method: 'ping' });
    expect((await raw.response('no-version')).error?.code).toBe(-32600);
    // 2026-07-28 removed initialize, ping and logging/setLevel: with the modern envelope they are unknown.
    expect((await raw.modern('ping')).error?.code).toBe(-32601);
    expect((await raw.modern('logging/setLevel', { level: 'info' })).error?.code).toBe(-32601);
    const init = await raw.modern('initialize', { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    expect(init.error?.code).toBe(-32601);
    expect(raw.messages.some((m) => m.id === 5)).toBe(false);
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('an over-long line (> 4 MiB) is -32600 with id null, and the stream goes on', async () => {
    const raw = new RawServer();
    const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"pad":"${'x'.repeat(5 * 1024 * 1024)}"}}\n`;
    raw.write(big);
    const error = await raw.waitFor((m) => m.error !== undefined, 'error for the long line');
    expect(error).toMatchObject({ id: null, error: { code: -32600 } });
    const next = await raw.modern('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    expect(next.result).toMatchObject({ structuredContent: { result: 5 } });
    expect(raw.messages.some((m) => m.id === 'big')).toBe(false);
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
  });

  it('stdout carries only JSON-RPC even when a handler writes to stdout', async () => {
    const raw = new RawServer(NOISY_MATH);
    await raw.initialize();
    const call = await raw.request('tools/call', { name: 'noisy', arguments: {} });
    expect(call.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    const modernCall = await raw.modern('tools/call', { name: 'noisy', arguments: {} });
    expect(modernCall.result).toMatchObject({ resultType: 'complete' });
    expect(await raw.endStdin()).toMatchObject({ code: 0, signal: null });
    raw.expectCleanStdout();
    expect(raw.stderr).toContain('console.log noise from a tool');
    expect(raw.stderr).toContain('process.stdout.write noise from a tool');
    expect(raw.stderr).toContain('console.log noise after serveStdio');
  });

  it('stdin EOF: the process exits with code 0 promptly', async () => {
    const raw = new RawServer();
    await raw.request('ping'); // up and serving (2025 ping needs no params)
    const exit = await raw.endStdin();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(EXIT_BUDGET_MS);
    raw.expectCleanStdout();
  });

  it('stdin EOF right after requests: they are still answered before the exit', async () => {
    const raw = new RawServer();
    await raw.modern('server/discover');
    const ids = [raw.newId(), raw.newId(), raw.newId()];
    // Written in one go with the EOF; the last line has no trailing newline.
    raw.child.stdin!.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: ids[0], method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 }, _meta: modernMeta } })}\n` +
        `${JSON.stringify({ jsonrpc: '2.0', id: ids[1], method: 'resources/read', params: { uri: 'math://tables/9', _meta: modernMeta } })}\n` +
        JSON.stringify({ jsonrpc: '2.0', id: ids[2], method: 'tools/call', params: { name: 'multiply', arguments: { a: 3, b: 3 }, _meta: modernMeta } }),
    );
    const exit = await exitOf(raw.child, performance.now());
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(EXIT_BUDGET_MS);
    raw.expectCleanStdout();
    expect(raw.messages.find((m) => m.id === ids[0])?.result).toMatchObject({ structuredContent: { result: 2 } });
    expect(JSON.stringify(raw.messages.find((m) => m.id === ids[1])?.result)).toContain('9 x 10 = 90');
    expect(raw.messages.find((m) => m.id === ids[2])?.result).toMatchObject({ structuredContent: { result: 9 } });
  });
});
