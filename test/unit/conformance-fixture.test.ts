/**
 * The conformance fixture (examples/conformance/fixture.ts), driven through `handle()` / `dispatch()`
 * without HTTP, for both eras: a 2025-11-25 session (initialize, then the connection object a
 * transport would keep) and stateless 2026-07-28 requests carrying their own `_meta`.
 */
import { describe, expect, it, vi } from 'vitest';
import { createConformanceFixture } from '../../examples/conformance/fixture.js';
import { META, type Connection, type JsonRpcMessage, type MiniMCP } from '../../src/index.js';

// ---- helpers --------------------------------------------------------------------------------------

interface Reply {
  jsonrpc: '2.0';
  id: unknown;
  result?: any;
  error?: { code: number; message: string; data?: any };
}
type Sent = JsonRpcMessage & { id?: unknown; method?: string; params?: any };

const IMG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const MODERN = '2026-07-28';
const ALL_CAPS = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

const fixture = (): MiniMCP => createConformanceFixture({ stepDelayMs: 2 });
let nextId = 1;

const meta = (caps: object = ALL_CAPS, extra: object = {}) => ({
  [META.protocolVersion]: MODERN,
  [META.clientCapabilities]: caps,
  [META.clientInfo]: { name: 'fixture-test', version: '1.0.0' },
  ...extra,
});

/** A 2026 request: `_meta` (with the given capabilities) is added to the params. */
async function modern(
  mcp: MiniMCP,
  method: string,
  params: Record<string, unknown> = {},
  opts: { caps?: object; metaExtra?: object; send?: (m: JsonRpcMessage) => void } = {},
): Promise<Reply & { status: number }> {
  const message = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(opts.caps, opts.metaExtra) } };
  const { reply, status } = await mcp.dispatch(message, { send: opts.send });
  return { ...(reply as unknown as Reply), status };
}

/** A 2025 session: initialize + initialized on one connection; `sent` collects the stream. */
async function session(mcp: MiniMCP, capabilities: object = { sampling: {}, elicitation: {} }) {
  const connection: Connection = { id: `session-${nextId}` };
  const sent: Sent[] = [];
  const send = (m: JsonRpcMessage) => sent.push(m as Sent);
  const init = (await mcp.handle(
    { jsonrpc: '2.0', id: nextId++, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } } },
    { connection },
  )) as unknown as Reply;
  await mcp.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, { connection });
  const request = async (method: string, params?: Record<string, unknown>): Promise<Reply> =>
    (await mcp.handle(
      params === undefined ? { jsonrpc: '2.0', id: nextId++, method } : { jsonrpc: '2.0', id: nextId++, method, params },
      { connection, send },
    )) as unknown as Reply;
  return { connection, init, sent, request };
}

const textOf = (reply: Reply): string => reply.result?.content?.[0]?.text;
const notifications = (sent: Sent[], method: string) => sent.filter((m) => m.method === method && m.id === undefined);
const serverRequests = (sent: Sent[]) => sent.filter((m) => m.method !== undefined && m.id !== undefined);

const BOTH_ERA_TOOLS = [
  'test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource', 'test_multiple_content_types',
  'test_tool_with_logging', 'test_tool_with_progress', 'test_error_handling', 'json_schema_2020_12_tool', 'test_custom_headers',
  'test_reconnection',
];
const LEGACY_TOOLS = ['test_sampling', 'test_elicitation', 'test_elicitation_sep1034_defaults', 'test_elicitation_sep1330_enums'];
const MRTR_TOOLS = [
  'test_input_required_result_elicitation', 'test_input_required_result_sampling', 'test_input_required_result_list_roots',
  'test_input_required_result_request_state', 'test_input_required_result_multiple_inputs', 'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state', 'test_input_required_result_capabilities',
];
const DIAGNOSTIC_TOOLS = ['test_missing_capability', 'test_streaming_elicitation', 'test_logging_tool'];
const TASK_TOOLS = ['greet', 'slow_compute', 'failing_job', 'protocol_error_job', 'confirm_delete', 'multi_input', 'test_tool_with_task'];
const HOOKS = ['test_trigger_tool_change', 'test_trigger_prompt_change'];
const PROMPTS = [
  'test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image',
  'test_input_required_result_prompt',
];

/** The suite's JSON_SCHEMA_2020_12_FIXTURE, copied independently from its source. */
const SUITE_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const elicitAnswer = (content: Record<string, unknown>) => ({ action: 'accept', content });
const samplingAnswer = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
const rootsAnswer = () => ({ roots: [{ uri: 'file:///tmp/project', name: 'project' }] });

// ====================================================================================================
// 2025-11-25
// ====================================================================================================

describe('conformance fixture, 2025-11-25 session', () => {
  it('initialize echoes 2025-11-25 and declares the fixture capabilities', async () => {
    const { init } = await session(fixture());
    expect(init.result.protocolVersion).toBe('2025-11-25');
    expect(init.result.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(init.result.serverInfo).toMatchObject({ name: 'minimcp-conformance-fixture', version: '1.0.0' });
    expect(init.result).not.toHaveProperty('resultType');
  });

  it('ping, logging/setLevel, resources/subscribe and unsubscribe answer exactly {}', async () => {
    const { request, connection } = await session(fixture());
    expect((await request('ping')).result).toStrictEqual({});
    expect((await request('logging/setLevel', { level: 'info' })).result).toStrictEqual({});
    expect(connection.logLevel).toBe('info');
    expect((await request('resources/subscribe', { uri: 'test://watched-resource' })).result).toStrictEqual({});
    expect(connection.subscriptions?.has('test://watched-resource')).toBe(true);
    expect((await request('resources/unsubscribe', { uri: 'test://watched-resource' })).result).toStrictEqual({});
    expect(connection.subscriptions?.has('test://watched-resource')).toBe(false);
  });

  it('tools/list: every tool of both eras and the hooks, valid names, descriptions and object schemas', async () => {
    const { request } = await session(fixture());
    const reply = await request('tools/list');
    const tools = reply.result.tools as { name: string; description?: string; inputSchema: { type: string } }[];
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...BOTH_ERA_TOOLS, ...LEGACY_TOOLS, ...MRTR_TOOLS, ...DIAGNOSTIC_TOOLS, ...TASK_TOOLS, ...HOOKS]);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_./-]{1,64}$/);
      expect(typeof tool.description === 'string' && tool.description.length > 0).toBe(true);
      expect(tool.inputSchema.type).toBe('object');
    }
    expect(reply.result).not.toHaveProperty('resultType');
    expect(reply.result).not.toHaveProperty('ttlMs');
    expect(reply.result).not.toHaveProperty('nextCursor');
    expect((await request('tools/list')).result.tools.map((t: { name: string }) => t.name)).toEqual(names);
  });

  it('the content tools return the exact blocks (test_simple_text without arguments)', async () => {
    const { request } = await session(fixture());
    const simple = await request('tools/call', { name: 'test_simple_text' });
    expect(simple.result).toStrictEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }] });
    expect((await request('tools/call', { name: 'test_image_content', arguments: {} })).result.content)
      .toStrictEqual([{ type: 'image', data: IMG, mimeType: 'image/png' }]);
    expect((await request('tools/call', { name: 'test_audio_content', arguments: {} })).result.content)
      .toStrictEqual([{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]);
    expect((await request('tools/call', { name: 'test_embedded_resource', arguments: {} })).result.content).toStrictEqual([
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ]);
    const mixed = (await request('tools/call', { name: 'test_multiple_content_types', arguments: {} })).result.content;
    expect(mixed.map((b: { type: string }) => b.type)).toEqual(['text', 'image', 'resource']);
    expect(mixed[2].resource).toStrictEqual({ uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' });
  });

  it('test_error_handling is an isError result, not a JSON-RPC error', async () => {
    const { request } = await session(fixture());
    const reply = await request('tools/call', { name: 'test_error_handling', arguments: {} });
    expect(reply.error).toBeUndefined();
    expect(reply.result).toStrictEqual({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });

  it('test_tool_with_logging sends three info logs in order on the call stream, then the result', async () => {
    const { request, sent } = await session(fixture());
    await request('logging/setLevel', { level: 'debug' });
    const reply = await request('tools/call', { name: 'test_tool_with_logging', arguments: {} });
    expect(textOf(reply)).toBe('Tool with logging executed successfully');
    expect(notifications(sent, 'notifications/message').map((m) => m.params)).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
  });

  it('test_tool_with_logging honours logging/setLevel (error hides info logs)', async () => {
    const { request, sent } = await session(fixture());
    await request('logging/setLevel', { level: 'error' });
    await request('tools/call', { name: 'test_tool_with_logging', arguments: {} });
    expect(notifications(sent, 'notifications/message')).toHaveLength(0);
  });

  it('test_tool_with_progress reports 0/50/100 of 100 with the request token, ~stepDelay apart', async () => {
    const mcp = createConformanceFixture({ stepDelayMs: 15 });
    const { request, sent } = await session(mcp);
    const times: number[] = [];
    const started = Date.now();
    const call = request('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } });
    await vi.waitFor(() => {
      times.push(Date.now() - started);
      expect(notifications(sent, 'notifications/progress').length).toBeGreaterThanOrEqual(3);
    }, { timeout: 2000, interval: 2 });
    const reply = await call;
    expect(reply.result.content[0].type).toBe('text');
    const progress = notifications(sent, 'notifications/progress').map((m) => m.params);
    expect(progress.map((p) => [p.progressToken, p.progress, p.total])).toEqual([
      ['progress-test-1', 0, 100], ['progress-test-1', 50, 100], ['progress-test-1', 100, 100],
    ]);
    expect(times.at(-1)!).toBeGreaterThanOrEqual(25); // two pauses of 15 ms (timer slack allowed)
  });

  it('test_tool_with_progress sends nothing without a progressToken', async () => {
    const { request, sent } = await session(fixture());
    const reply = await request('tools/call', { name: 'test_tool_with_progress', arguments: {} });
    expect(reply.result.isError).toBeUndefined();
    expect(notifications(sent, 'notifications/progress')).toHaveLength(0);
  });

  it('test_sampling sends sampling/createMessage on the stream and answers with the model text', async () => {
    const mcp = fixture();
    const { request, sent, connection } = await session(mcp);
    const call = request('tools/call', { name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    const asked = await vi.waitFor(() => {
      const r = serverRequests(sent)[0];
      if (!r) throw new Error('no request yet');
      return r;
    }, { timeout: 2000, interval: 2 });
    expect(asked.method).toBe('sampling/createMessage');
    expect(asked.params).toStrictEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 100 });
    expect(await mcp.handle({ jsonrpc: '2.0', id: asked.id as string, result: samplingAnswer('Paris') }, { connection })).toBeUndefined();
    expect(textOf(await call)).toBe('LLM response: Paris');
  });

  it('test_elicitation sends elicitation/create with the message and a flat schema', async () => {
    const mcp = fixture();
    const { request, sent, connection } = await session(mcp);
    const call = request('tools/call', { name: 'test_elicitation', arguments: { message: 'Your answer?' } });
    const asked = await vi.waitFor(() => {
      const r = serverRequests(sent)[0];
      if (!r) throw new Error('no request yet');
      return r;
    }, { timeout: 2000, interval: 2 });
    expect(asked.method).toBe('elicitation/create');
    expect(asked.params.message).toBe('Your answer?');
    expect(asked.params.requestedSchema).toStrictEqual({
      type: 'object', properties: { response: { type: 'string', description: "User's response" } }, required: ['response'],
    });
    await mcp.handle({ jsonrpc: '2.0', id: asked.id as string, result: elicitAnswer({ response: 'yes' }) }, { connection });
    expect(textOf(await call)).toBe('User response: action=accept, content={"response":"yes"}');
  });

  /** Calls an elicitation tool, captures its request, declines it, and returns the request params. */
  async function elicitationOf(name: string) {
    const mcp = fixture();
    const { request, sent, connection } = await session(mcp);
    const call = request('tools/call', { name, arguments: {} });
    const asked = await vi.waitFor(() => {
      const r = serverRequests(sent)[0];
      if (!r) throw new Error('no request yet');
      return r;
    }, { timeout: 2000, interval: 2 });
    await mcp.handle({ jsonrpc: '2.0', id: asked.id as string, result: { action: 'decline' } }, { connection });
    expect(textOf(await call)).toBe('Elicitation completed: action=decline, content={}');
    expect(asked.method).toBe('elicitation/create');
    return asked.params;
  }

  it('test_elicitation_sep1034_defaults asks with a default for every primitive type', async () => {
    const { requestedSchema } = await elicitationOf('test_elicitation_sep1034_defaults');
    const p = requestedSchema.properties;
    expect([p.name.type, p.name.default]).toEqual(['string', 'John Doe']);
    expect([p.age.type, p.age.default]).toEqual(['integer', 30]);
    expect([p.score.type, p.score.default]).toEqual(['number', 95.5]);
    expect([p.status.type, p.status.enum, p.status.default]).toEqual(['string', ['active', 'inactive', 'pending'], 'active']);
    expect([p.verified.type, p.verified.default]).toEqual(['boolean', true]);
  });

  it('test_elicitation_sep1330_enums asks with the five enum shapes', async () => {
    const { requestedSchema } = await elicitationOf('test_elicitation_sep1330_enums');
    const p = requestedSchema.properties;
    expect(p.untitledSingle).toMatchObject({ type: 'string', enum: ['option1', 'option2', 'option3'] });
    expect(p.untitledSingle).not.toHaveProperty('oneOf');
    expect(p.untitledSingle).not.toHaveProperty('enumNames');
    expect(p.titledSingle.type).toBe('string');
    expect(p.titledSingle.oneOf).toEqual([
      { const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' },
    ]);
    expect(p.legacyEnum.enum).toHaveLength(3);
    expect(p.legacyEnum.enumNames).toHaveLength(p.legacyEnum.enum.length);
    expect(p.untitledMulti).toMatchObject({ type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } });
    expect(p.titledMulti).toMatchObject({ type: 'array', minItems: 1, maxItems: 3 });
    expect(p.titledMulti.items.anyOf.map((o: { const: string }) => o.const)).toEqual(['value1', 'value2', 'value3']);
  });

  it('json_schema_2020_12_tool publishes the suite schema verbatim and validates against it', async () => {
    const { request } = await session(fixture());
    const tools = (await request('tools/list')).result.tools as { name: string; inputSchema: unknown }[];
    expect(tools.find((t) => t.name === 'json_schema_2020_12_tool')!.inputSchema).toStrictEqual(SUITE_JSON_SCHEMA);
    const ok = await request('tools/call', { name: 'json_schema_2020_12_tool', arguments: { name: 'Ann', contactMethod: 'email', email: 'a@b.c' } });
    expect(textOf(ok)).toBe('JSON Schema 2020-12 tool called with: {"name":"Ann","contactMethod":"email","email":"a@b.c"}');
    const bad = await request('tools/call', { name: 'json_schema_2020_12_tool', arguments: { name: 'Ann', contactMethod: 'phone', email: 'a@b.c' } });
    expect(bad.result.isError).toBe(true);
    const extra = await request('tools/call', { name: 'json_schema_2020_12_tool', arguments: { email: 'a@b.c', nickname: 'x' } });
    expect(extra.result.isError).toBe(true);
  });

  it('test_reconnection answers with text', async () => {
    const { request } = await session(fixture());
    expect(textOf(await request('tools/call', { name: 'test_reconnection', arguments: {} }))).toMatch(/^Reconnection test completed successfully/);
  });

  it('the MRTR tools say clearly that they need 2026-07-28; the MRTR prompt is -32602', async () => {
    const { request, sent } = await session(fixture());
    for (const name of MRTR_TOOLS) {
      const reply = await request('tools/call', { name, arguments: {} });
      expect(reply.result.isError, name).toBe(true);
      expect(textOf(reply), name).toContain('2026-07-28');
      expect(textOf(reply), name).toContain(name);
    }
    const prompt = await request('prompts/get', { name: 'test_input_required_result_prompt' });
    expect(prompt.error?.code).toBe(-32602);
    expect(prompt.error?.message).toContain('2026-07-28');
    expect(serverRequests(sent)).toHaveLength(0);
  });

  it('resources: static-text listed first, every resource has uri and name; the template is listed', async () => {
    const { request } = await session(fixture());
    const resources = (await request('resources/list')).result.resources as { uri: string; name: string; mimeType: string }[];
    expect(resources.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary', 'test://watched-resource']);
    for (const r of resources) expect(r.name.length).toBeGreaterThan(0);
    expect(resources[0]!.mimeType).toBe('text/plain');
    const templates = (await request('resources/templates/list')).result.resourceTemplates;
    expect(templates).toEqual([expect.objectContaining({ uriTemplate: 'test://template/{id}/data', name: 'template', mimeType: 'application/json' })]);
  });

  it('resources/read: text, binary, template and watched contents; unknown URI is -32602 with data.uri', async () => {
    const { request } = await session(fixture());
    expect((await request('resources/read', { uri: 'test://static-text' })).result).toStrictEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    expect((await request('resources/read', { uri: 'test://static-binary' })).result.contents)
      .toStrictEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: IMG }]);
    const template = (await request('resources/read', { uri: 'test://template/123/data' })).result.contents[0];
    expect(template.uri).toBe('test://template/123/data');
    expect(template.mimeType).toBe('application/json');
    expect(JSON.parse(template.text)).toStrictEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
    expect((await request('resources/read', { uri: 'test://watched-resource' })).result.contents[0].text).toBe('Watched resource content');
    const missing = await request('resources/read', { uri: 'test://nonexistent-resource-for-conformance-testing' });
    expect(missing.result).toBeUndefined();
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'test://nonexistent-resource-for-conformance-testing' } });
  });

  it('prompts/list: every prompt has a description; arguments are declared', async () => {
    const { request } = await session(fixture());
    const prompts = (await request('prompts/list')).result.prompts as { name: string; description: string; arguments?: unknown[] }[];
    expect(prompts.map((p) => p.name)).toEqual(PROMPTS);
    for (const p of prompts) expect(p.description.length, p.name).toBeGreaterThan(0);
    expect(prompts.find((p) => p.name === 'test_prompt_with_arguments')!.arguments).toEqual([
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ]);
  });

  it('prompts/get: simple, with arguments, embedded resource and image', async () => {
    const { request } = await session(fixture());
    expect((await request('prompts/get', { name: 'test_simple_prompt' })).result.messages)
      .toStrictEqual([{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
    const args = await request('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
    expect(args.result.messages[0].content.text).toBe("Prompt with arguments: arg1='testValue1', arg2='testValue2'");
    const embedded = await request('prompts/get', { name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } });
    expect(embedded.result.messages[0]).toStrictEqual({
      role: 'user',
      content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
    });
    expect(embedded.result.messages[1].content.type).toBe('text');
    const image = await request('prompts/get', { name: 'test_prompt_with_image' });
    expect(image.result.messages[0].content).toStrictEqual({ type: 'image', data: IMG, mimeType: 'image/png' });
    expect(image.result.messages[1].content.text).toBe('Please analyze the image above.');
  });

  it('prompts/get without a required argument is -32602 naming it', async () => {
    const { request } = await session(fixture());
    const reply = await request('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } });
    expect(reply.error).toMatchObject({ code: -32602, data: ['arg2'] });
  });

  it('completion/complete suggests arg1 values and template ids by prefix', async () => {
    const { request } = await session(fixture());
    const arg1 = await request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' },
    });
    expect(arg1.result.completion).toStrictEqual({ values: ['test', 'testValue1', 'testValue2'], total: 3, hasMore: false });
    const arg2 = await request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg2', value: 'x' },
    });
    expect(arg2.result.completion.values).toEqual([]);
    const id = await request('completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } });
    expect(id.result.completion.values).toEqual(['456']);
  });

  it('the hooks are callable, fire list_changed on the bus, and leave the lists as they were', async () => {
    const mcp = fixture();
    const { request } = await session(mcp);
    const events: string[] = [];
    const unsubscribe = mcp.bus.subscribe((e) => events.push(e.type));
    const toolsBefore = (await request('tools/list')).result.tools;
    const promptsBefore = (await request('prompts/list')).result.prompts;
    expect(textOf(await request('tools/call', { name: 'test_trigger_tool_change', arguments: {} }))).toBe('Tool list changed');
    expect(events).toEqual(['tools/list_changed', 'tools/list_changed']);
    expect(textOf(await request('tools/call', { name: 'test_trigger_prompt_change', arguments: {} }))).toBe('Prompt list changed');
    expect(events.slice(2)).toEqual(['prompts/list_changed', 'prompts/list_changed']);
    unsubscribe();
    expect((await request('tools/list')).result.tools).toStrictEqual(toolsBefore);
    expect((await request('prompts/list')).result.prompts).toStrictEqual(promptsBefore);
  });
});

// ====================================================================================================
// 2026-07-28
// ====================================================================================================

describe('conformance fixture, 2026-07-28 stateless requests', () => {
  it('server/discover: versions, capabilities, serverInfo, resultType and cache hints', async () => {
    const reply = await modern(fixture(), 'server/discover');
    expect(reply.status).toBe(200);
    expect(reply.result.supportedVersions).toEqual([MODERN]);
    expect(reply.result.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, completions: {} });
    expect(reply.result._meta[META.serverInfo]).toMatchObject({ name: 'minimcp-conformance-fixture', version: '1.0.0' });
    expect(reply.result.resultType).toBe('complete');
    expect(Number.isInteger(reply.result.ttlMs)).toBe(true);
    expect(['public', 'private']).toContain(reply.result.cacheScope);
  });

  it('removed methods are -32601 with HTTP 404 and the request id', async () => {
    const mcp = fixture();
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method']) {
      const reply = await modern(mcp, method, method.startsWith('resources/') ? { uri: 'test://watched-resource' } : {});
      expect(reply.error?.code, method).toBe(-32601);
      expect(reply.status, method).toBe(404);
      expect(reply.id, method).toBe(nextId - 1);
    }
  });

  it('lists and the first resource read carry resultType and cache hints; lists never ask for input', async () => {
    const mcp = fixture();
    const first = (await modern(mcp, 'resources/list')).result.resources[0].uri;
    expect(first).toBe('test://static-text');
    for (const [method, params] of [
      ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}], ['resources/templates/list', {}], ['resources/read', { uri: first }],
    ] as const) {
      const reply = await modern(mcp, method, params);
      expect(reply.result.resultType, method).toBe('complete');
      expect(Number.isInteger(reply.result.ttlMs) && reply.result.ttlMs >= 0, method).toBe(true);
      expect(['public', 'private'], method).toContain(reply.result.cacheScope);
    }
  });

  it('tools/list: same tools as 2025, deterministic order', async () => {
    const mcp = fixture();
    const a = (await modern(mcp, 'tools/list')).result.tools.map((t: { name: string }) => t.name);
    const b = (await modern(mcp, 'tools/list')).result.tools.map((t: { name: string }) => t.name);
    expect(a).toEqual([...BOTH_ERA_TOOLS, ...LEGACY_TOOLS, ...MRTR_TOOLS, ...DIAGNOSTIC_TOOLS, ...TASK_TOOLS, ...HOOKS]);
    expect(b).toEqual(a);
    const prompts = (await modern(mcp, 'prompts/list')).result.prompts.map((p: { name: string }) => p.name);
    expect(prompts).toEqual(PROMPTS);
  });

  it('tools/call, prompts/get and completion results carry resultType "complete" but no cache hints', async () => {
    const mcp = fixture();
    const call = await modern(mcp, 'tools/call', { name: 'test_simple_text' });
    expect(call.result).toStrictEqual({ content: [{ type: 'text', text: 'This is a simple text response for testing.' }], resultType: 'complete' });
    const error = await modern(mcp, 'tools/call', { name: 'test_error_handling', arguments: {} });
    expect(error.result).toMatchObject({ isError: true, resultType: 'complete' });
    const prompt = await modern(mcp, 'prompts/get', { name: 'test_simple_prompt' });
    expect(prompt.result.resultType).toBe('complete');
    expect(prompt.result).not.toHaveProperty('ttlMs');
    const completion = await modern(mcp, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' },
    });
    expect(completion.result.resultType).toBe('complete');
    expect(Array.isArray(completion.result.completion.values)).toBe(true);
  });

  it('resources/read of an unknown URI is -32602 with data.uri, never empty contents', async () => {
    const uri = 'test://nonexistent-resource-for-conformance-testing';
    const reply = await modern(fixture(), 'resources/read', { uri });
    expect(reply.result).toBeUndefined();
    expect(reply.error).toMatchObject({ code: -32602, data: { uri } });
  });

  it('test_tool_with_progress streams progress on the request channel before the result', async () => {
    const sent: Sent[] = [];
    const reply = await modern(fixture(), 'tools/call', { name: 'test_tool_with_progress', arguments: {} }, {
      send: (m) => sent.push(m as Sent), metaExtra: { progressToken: 7 },
    });
    expect(reply.result.resultType).toBe('complete');
    expect(notifications(sent, 'notifications/progress').map((m) => [m.params.progressToken, m.params.progress])).toEqual([[7, 0], [7, 50], [7, 100]]);
  });

  it('test_tool_with_logging logs only when _meta sets a logLevel', async () => {
    const mcp = fixture();
    const quiet: Sent[] = [];
    await modern(mcp, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }, { send: (m) => quiet.push(m as Sent) });
    expect(notifications(quiet, 'notifications/message')).toHaveLength(0);
    const loud: Sent[] = [];
    await modern(mcp, 'tools/call', { name: 'test_tool_with_logging', arguments: {} }, {
      send: (m) => loud.push(m as Sent), metaExtra: { [META.logLevel]: 'info' },
    });
    expect(notifications(loud, 'notifications/message').map((m) => m.params.data))
      .toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  });

  it('test_missing_capability: -32021 + HTTP 400 with requiredCapabilities {sampling:{}}; served with sampling', async () => {
    const mcp = fixture();
    const refused = await modern(mcp, 'tools/call', { name: 'test_missing_capability', arguments: {} }, { caps: {} });
    expect(refused.status).toBe(400);
    expect(refused.id).toBe(nextId - 1);
    expect(refused.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    const served = await modern(mcp, 'tools/call', { name: 'test_missing_capability', arguments: {} }, { caps: { sampling: {} } });
    expect(served.status).toBe(200);
    expect(served.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text' }] });
    expect(served.result.isError).toBeUndefined();
  });

  it('test_streaming_elicitation: notifications and a result, never a request on the stream', async () => {
    const sent: Sent[] = [];
    const reply = await modern(fixture(), 'tools/call', { name: 'test_streaming_elicitation', arguments: {} }, {
      caps: { elicitation: {} }, send: (m) => sent.push(m as Sent), metaExtra: { progressToken: 'stream-1' },
    });
    expect(reply.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Streaming complete' }] });
    expect(reply.result.isError).toBeUndefined();
    expect(notifications(sent, 'notifications/progress').map((m) => m.params.progress)).toEqual([50, 100]);
    expect(serverRequests(sent)).toHaveLength(0);
  });

  it('test_logging_tool: no notifications/message without logLevel, one with it', async () => {
    const mcp = fixture();
    const quiet: Sent[] = [];
    const reply = await modern(mcp, 'tools/call', { name: 'test_logging_tool', arguments: {} }, { caps: {}, send: (m) => quiet.push(m as Sent) });
    expect(reply.result).toMatchObject({ resultType: 'complete' });
    expect(reply.result.isError).toBeUndefined();
    expect(quiet).toHaveLength(0);
    const loud: Sent[] = [];
    await modern(mcp, 'tools/call', { name: 'test_logging_tool', arguments: {} }, { send: (m) => loud.push(m as Sent), metaExtra: { [META.logLevel]: 'debug' } });
    expect(notifications(loud, 'notifications/message')).toHaveLength(1);
  });

  describe('MRTR round trips', () => {
    it('elicitation: input_required with user_name, then "Hello, Alice!" with the echoed state', async () => {
      const mcp = fixture();
      const sent: Sent[] = [];
      const r1 = await modern(mcp, 'tools/call', { name: 'test_input_required_result_elicitation', arguments: {} }, { send: (m) => sent.push(m as Sent) });
      expect(r1.result.resultType).toBe('input_required');
      expect(Object.keys(r1.result.inputRequests)).toEqual(['user_name']);
      expect(r1.result.inputRequests.user_name).toStrictEqual({
        method: 'elicitation/create',
        params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      });
      expect(typeof r1.result.requestState).toBe('string');
      expect(sent).toHaveLength(0); // no elicitation/create request on the stream in 2026
      const r2 = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_elicitation', arguments: {},
        inputResponses: { user_name: elicitAnswer({ name: 'Alice' }) }, requestState: r1.result.requestState,
      });
      expect(r2.result).toStrictEqual({ content: [{ type: 'text', text: 'Hello, Alice!' }], resultType: 'complete' });
    });

    it('elicitation: a retry without requestState and with extra keys still completes', async () => {
      const reply = await modern(fixture(), 'tools/call', {
        name: 'test_input_required_result_elicitation', arguments: {},
        inputResponses: {
          user_name: elicitAnswer({ name: 'Alice' }),
          unknown_extra_key: { action: 'accept', content: { foo: 'bar' } },
          another_unexpected: { action: 'accept', content: { baz: 123 } },
        },
      });
      expect(reply.result.resultType).toBe('complete');
      expect(textOf(reply)).toBe('Hello, Alice!');
    });

    it('elicitation: a declined answer completes without a name', async () => {
      const reply = await modern(fixture(), 'tools/call', {
        name: 'test_input_required_result_elicitation', arguments: {}, inputResponses: { user_name: { action: 'decline' } },
      });
      expect(reply.result.resultType).toBe('complete');
      expect(textOf(reply)).toBe('No name given (action=decline).');
    });

    it('a missing key (only wrong_key answered) gets input_required again', async () => {
      const reply = await modern(fixture(), 'tools/call', {
        name: 'test_input_required_result_elicitation', arguments: {}, inputResponses: { wrong_key: elicitAnswer({ name: 'Alice' }) },
      });
      expect(reply.result.resultType).toBe('input_required');
      expect(Object.keys(reply.result.inputRequests)).toEqual(['user_name']);
    });

    it('malformed answers (12345, null, a sampling shape) never complete', async () => {
      const mcp = fixture();
      for (const inputResponses of [{ user_name: 12345 }, null, { user_name: null }, { user_name: samplingAnswer('x') }, [elicitAnswer({})]]) {
        const reply = await modern(mcp, 'tools/call', { name: 'test_input_required_result_elicitation', arguments: {}, inputResponses });
        expect(reply.result?.resultType, JSON.stringify(inputResponses)).not.toBe('complete');
        expect(reply.error?.code, JSON.stringify(inputResponses)).toBe(-32602);
      }
    });

    it('sampling: sample_request for "What is the capital of France?", then the model text', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'tools/call', { name: 'test_input_required_result_sampling', arguments: {} });
      expect(r1.result.resultType).toBe('input_required');
      expect(r1.result.inputRequests.sample_request).toStrictEqual({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      });
      const r2 = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_sampling', arguments: {},
        inputResponses: { sample_request: samplingAnswer('Paris') }, requestState: r1.result.requestState,
      });
      expect(r2.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Sampling result: Paris' }] });
    });

    it('list roots: roots_request with empty params, then the root count', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'tools/call', { name: 'test_input_required_result_list_roots', arguments: {} });
      expect(r1.result.inputRequests).toStrictEqual({ roots_request: { method: 'roots/list', params: {} } });
      const r2 = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_list_roots', arguments: {},
        inputResponses: { roots_request: rootsAnswer() }, requestState: r1.result.requestState,
      });
      expect(r2.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Found 1 root(s)' }] });
    });

    it('request state: confirm {ok:boolean} plus a string state; the retry says state-ok', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'tools/call', { name: 'test_input_required_result_request_state', arguments: {} });
      expect(r1.result.resultType).toBe('input_required');
      expect(r1.result.inputRequests.confirm.method).toBe('elicitation/create');
      expect(r1.result.inputRequests.confirm.params.requestedSchema.properties).toStrictEqual({ ok: { type: 'boolean' } });
      expect(typeof r1.result.requestState).toBe('string');
      expect(r1.result.requestState.length).toBeGreaterThan(0);
      const r2 = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_request_state', arguments: {},
        inputResponses: { confirm: elicitAnswer({ ok: true }) }, requestState: r1.result.requestState,
      });
      expect(r2.result.resultType).toBe('complete');
      expect(textOf(r2)).toContain('state-ok');
      expect(textOf(r2)).toContain('confirmed=true');
    });

    it('multiple inputs: elicitation, sampling and roots in one round; partial answers ask only for the rest', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'tools/call', { name: 'test_input_required_result_multiple_inputs', arguments: {} });
      expect(r1.result.resultType).toBe('input_required');
      const requests = r1.result.inputRequests as Record<string, { method: string }>;
      expect(Object.fromEntries(Object.entries(requests).map(([k, v]) => [k, v.method]))).toStrictEqual({
        user_name: 'elicitation/create', greeting: 'sampling/createMessage', client_roots: 'roots/list',
      });
      expect(typeof r1.result.requestState).toBe('string');

      const partial = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_multiple_inputs', arguments: {},
        inputResponses: { user_name: elicitAnswer({ name: 'Alice' }), greeting: samplingAnswer('Hello there!') },
        requestState: r1.result.requestState,
      });
      expect(partial.result.resultType).toBe('input_required');
      expect(Object.keys(partial.result.inputRequests)).toEqual(['client_roots']);

      const done = await modern(mcp, 'tools/call', {
        name: 'test_input_required_result_multiple_inputs', arguments: {},
        inputResponses: { client_roots: rootsAnswer() }, requestState: partial.result.requestState,
      });
      expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Name: Alice; Greeting: Hello there!; Roots: 1' }] });
    });

    it('multi round: step1, then step2 with a different state, then complete', async () => {
      const mcp = fixture();
      const name = 'test_input_required_result_multi_round';
      const r1 = await modern(mcp, 'tools/call', { name, arguments: {} });
      expect(r1.result.resultType).toBe('input_required');
      expect(Object.keys(r1.result.inputRequests)).toEqual(['step1']);
      expect(typeof r1.result.requestState).toBe('string');
      const r2 = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { step1: elicitAnswer({ name: 'Alice' }) }, requestState: r1.result.requestState,
      });
      expect(r2.result.resultType).toBe('input_required');
      expect(Object.keys(r2.result.inputRequests)).toEqual(['step2']);
      expect(r2.result.inputRequests.step2.params.message).toBe('Step 2: What is your favorite color?');
      expect(typeof r2.result.requestState).toBe('string');
      expect(r2.result.requestState).not.toBe(r1.result.requestState);
      const r3 = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { step2: elicitAnswer({ color: 'blue' }) }, requestState: r2.result.requestState,
      });
      expect(r3.result).toStrictEqual({ content: [{ type: 'text', text: 'Multi-round complete for Alice who likes blue' }], resultType: 'complete' });
    });

    it('multi round: round 3 without the round-2 state starts over at step1', async () => {
      const reply = await modern(fixture(), 'tools/call', {
        name: 'test_input_required_result_multi_round', arguments: {}, inputResponses: { step2: elicitAnswer({ color: 'blue' }) },
      });
      expect(reply.result.resultType).toBe('input_required');
      expect(Object.keys(reply.result.inputRequests)).toEqual(['step1']);
    });

    it('tampered state: a retry with state + "-TAMPERED" (or another call\'s state) is -32602', async () => {
      const mcp = fixture();
      const name = 'test_input_required_result_tampered_state';
      const r1 = await modern(mcp, 'tools/call', { name, arguments: {} });
      expect(r1.result.resultType).toBe('input_required');
      const tampered = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { confirm: elicitAnswer({ ok: true }) }, requestState: `${r1.result.requestState}-TAMPERED`,
      });
      expect(tampered.result).toBeUndefined();
      expect(tampered.error?.code).toBe(-32602);
      const other = await modern(mcp, 'tools/call', { name: 'test_input_required_result_request_state', arguments: {} });
      const foreign = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { confirm: elicitAnswer({ ok: true }) }, requestState: other.result.requestState,
      });
      expect(foreign.error?.code).toBe(-32602);
      const honest = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { confirm: elicitAnswer({ ok: true }) }, requestState: r1.result.requestState,
      });
      expect(textOf(honest)).toBe('integrity-ok: state verified');
    });

    it('capabilities: with only {sampling:{}} no elicitation is requested; answers complete', async () => {
      const mcp = fixture();
      const name = 'test_input_required_result_capabilities';
      const r1 = await modern(mcp, 'tools/call', { name, arguments: {} }, { caps: { sampling: {} } });
      expect(r1.result.resultType).toBe('input_required');
      const methods = Object.values(r1.result.inputRequests as Record<string, { method: string }>).map((r) => r.method);
      expect(methods).toEqual(['sampling/createMessage']);
      expect(Object.keys(r1.result.inputRequests)).toEqual(['sample_input']);
      const r2 = await modern(mcp, 'tools/call', {
        name, arguments: {}, inputResponses: { sample_input: samplingAnswer('ok') }, requestState: r1.result.requestState,
      }, { caps: { sampling: {} } });
      expect(r2.result).toMatchObject({ resultType: 'complete', content: [{ text: 'capabilities-ok: received sample_input' }] });
    });

    it('capabilities: both declared asks for both; none declared completes at once', async () => {
      const mcp = fixture();
      const both = await modern(mcp, 'tools/call', { name: 'test_input_required_result_capabilities', arguments: {} });
      expect(Object.keys(both.result.inputRequests).sort()).toEqual(['elicit_input', 'sample_input']);
      const none = await modern(mcp, 'tools/call', { name: 'test_input_required_result_capabilities', arguments: {} }, { caps: {} });
      expect(none.result).toMatchObject({ resultType: 'complete', content: [{ text: 'No supported capabilities declared' }] });
    });

    it('prompts/get test_input_required_result_prompt: user_context, then a GetPromptResult', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'prompts/get', { name: 'test_input_required_result_prompt' });
      expect(r1.result.resultType).toBe('input_required');
      expect(r1.result.inputRequests.user_context.method).toBe('elicitation/create');
      expect(r1.result.inputRequests.user_context.params.requestedSchema.properties).toStrictEqual({ context: { type: 'string' } });
      const r2 = await modern(mcp, 'prompts/get', {
        name: 'test_input_required_result_prompt',
        inputResponses: { user_context: elicitAnswer({ context: 'testing' }) }, requestState: r1.result.requestState,
      });
      expect(r2.result.resultType).toBe('complete');
      expect(r2.result.messages).toStrictEqual([{ role: 'user', content: { type: 'text', text: 'Prompt with context: testing' } }]);
    });

    it('the 2025 asking tools work on 2026 too, through input_required (same handler)', async () => {
      const mcp = fixture();
      const r1 = await modern(mcp, 'tools/call', { name: 'test_sampling', arguments: { prompt: 'Hi?' } });
      expect(r1.result.resultType).toBe('input_required');
      expect(r1.result.inputRequests.sampling.method).toBe('sampling/createMessage');
      const r2 = await modern(mcp, 'tools/call', {
        name: 'test_sampling', arguments: { prompt: 'Hi?' }, inputResponses: { sampling: samplingAnswer('Hello') }, requestState: r1.result.requestState,
      });
      expect(textOf(r2)).toBe('LLM response: Hello');
      const noElicitation = await modern(mcp, 'tools/call', { name: 'test_elicitation', arguments: { message: 'x' } }, { caps: { sampling: {} } });
      expect(noElicitation.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    });
  });

  describe('list-change hooks and subscriptions/listen', () => {
    /** Opens a listen stream with the given filter; returns its frames and a close function. */
    async function listen(mcp: MiniMCP, filter: Record<string, boolean>) {
      const frames: Sent[] = [];
      const controller = new AbortController();
      const id = nextId++;
      const done = mcp.dispatch(
        { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter, _meta: meta({}) } },
        { send: (m) => frames.push(m as Sent), signal: controller.signal },
      );
      await vi.waitFor(() => expect(frames[0]?.method).toBe('notifications/subscriptions/acknowledged'), { timeout: 2000, interval: 2 });
      return { id, frames, close: async () => (controller.abort(), await done) };
    }

    it('test_trigger_tool_change reaches a tools stream, tagged; a prompts-only stream gets nothing', async () => {
      const mcp = fixture();
      const tools = await listen(mcp, { toolsListChanged: true });
      const prompts = await listen(mcp, { promptsListChanged: true });
      const reply = await modern(mcp, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} }, { caps: {} });
      expect(reply.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Tool list changed' }] });
      await tools.close();
      await prompts.close();
      const changes = tools.frames.filter((f) => f.method === 'notifications/tools/list_changed');
      expect(changes.length).toBeGreaterThanOrEqual(1);
      for (const f of tools.frames) expect(f.params._meta[META.subscriptionId]).toBe(tools.id);
      expect(prompts.frames.map((f) => f.method)).toEqual(['notifications/subscriptions/acknowledged']);
    });

    it('test_trigger_prompt_change reaches a prompts stream; the lists end as they began', async () => {
      const mcp = fixture();
      const prompts = await listen(mcp, { promptsListChanged: true });
      await modern(mcp, 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} }, { caps: {} });
      await prompts.close();
      expect(prompts.frames.some((f) => f.method === 'notifications/prompts/list_changed')).toBe(true);
      expect(prompts.frames.some((f) => f.method === 'notifications/tools/list_changed')).toBe(false);
      const names = (await modern(mcp, 'tools/list')).result.tools.map((t: { name: string }) => t.name);
      expect(names.slice(-HOOKS.length)).toEqual(HOOKS);
      const promptNames = (await modern(mcp, 'prompts/list')).result.prompts.map((p: { name: string }) => p.name);
      expect(promptNames).toEqual(PROMPTS);
    });
  });
});
