/**
 * The fixture server of the official MCP conformance suite (`@modelcontextprotocol/conformance`),
 * written with MiniMCP's public API only. It is also the most complete example of the framework:
 * every kind of content, logs, progress, asking the client for input, resources, templates, prompts,
 * completions, capability requirements, list changes and hooks.
 *
 * One instance serves both protocol eras on one endpoint:
 *  - 2025-11-25: `initialize`, then a session; `ctx.elicit()` / `ctx.sample()` / `ctx.listRoots()` send
 *    a real request to the client on the response stream and wait for its answer.
 *  - 2026-07-28: every request carries its own `_meta`; the same calls make the framework answer
 *    `{ resultType: "input_required", inputRequests, requestState }`, and the client's retry re-runs
 *    the handler from the start with the answers (MRTR). Handlers are written once for both.
 *
 * Names, texts and schemas are fixed by the suite (see its `everything-server.ts` and scenario sources).
 */
import {
  ErrorCode, McpError, MiniMCP, UserError, content,
  type Context, type CreateMessageResult, type ElicitResult, type JsonObject,
  type MiniMCPOptions,
} from '../../src/index.js';
import { registerTaskTools } from './task-tools.js';

/** Waits `ms`, or rejects when the request is cancelled. Web APIs only, so the fixture runs on every runtime. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

// ---- constants the suite checks -----------------------------------------------------------------

/** A 1x1 PNG. */
export const TEST_IMAGE_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A minimal WAV file. */
export const TEST_AUDIO_BASE64 = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/**
 * The suite's `JSON_SCHEMA_2020_12_FIXTURE` (src/scenarios/server/json-schema-2020-12.ts), verbatim.
 * A raw JSON Schema is published exactly as given and validated as 2020-12.
 */
export const JSON_SCHEMA_2020_12_FIXTURE = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: {
        street: { type: 'string' },
        city: { type: 'string' },
      },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: {
    properties: { contactMethod: { const: 'phone' } },
    required: ['contactMethod'],
  },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export interface ConformanceFixtureOptions {
  /** Pause between the log and progress steps of the streaming tools. The suite expects about 50 ms. */
  stepDelayMs?: number;
  /** Extra server options (the cluster's shared state and secret, see examples/cluster.ts). */
  server?: Partial<MiniMCPOptions>;
}

// ---- small helpers ------------------------------------------------------------------------------

/** A flat elicitation form: `{ field: 'string' | 'boolean' ... }`, every field required. */
function form(fields: Record<string, string>): JsonObject {
  const properties = Object.fromEntries(Object.entries(fields).map(([name, type]) => [name, { type }]));
  return { type: 'object', properties, required: Object.keys(fields) };
}

/** One user text message for sampling. */
const ask = (text: string, maxTokens: number) => ({
  messages: [{ role: 'user' as const, content: { type: 'text', text } }],
  maxTokens,
});

/** A field of an accepted elicitation, or undefined (declined, cancelled, missing). */
function accepted(answer: ElicitResult, field: string): unknown {
  return answer.action === 'accept' ? answer.content?.[field] : undefined;
}

/** The text of a sampling answer (content is one block or an array of blocks). */
function textOf(answer: CreateMessageResult): string {
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  const text = blocks.find((b) => b.type === 'text')?.text;
  return typeof text === 'string' ? text : '(no text)';
}

/**
 * The `test_input_required_result_*` fixtures promise an `input_required` result, which exists only on
 * the 2026-07-28 wire. On a 2025 session they say so instead of pretending (the 2025 way of asking the
 * client is shown by test_elicitation and test_sampling). A thrown McpError is an `isError` result
 * from a tool and a JSON-RPC error from a prompt.
 */
function requireModern(ctx: Context, name: string): void {
  if (ctx.era === 'stateless') return;
  throw new McpError(
    ErrorCode.InvalidParams,
    `'${name}' exercises 2026-07-28 multi-round input (input_required results); ` +
      `this request uses protocol ${ctx.protocolVersion}. Use test_elicitation or test_sampling on 2025 sessions.`,
  );
}

// ---- the fixture --------------------------------------------------------------------------------

export function createConformanceFixture(options: ConformanceFixtureOptions = {}): MiniMCP {
  const step = options.stepDelayMs ?? 50;
  const mcp = new MiniMCP({
    ...options.server,
    name: 'minimcp-conformance-fixture',
    version: '1.0.0',
    title: 'MiniMCP conformance fixture',
    instructions: 'The fixture server of the official MCP conformance suite.',
  });

  // == Tools, both eras: content types ===========================================================
  // A handler returns a string, a content block, an array of blocks or a full CallToolResult.

  mcp.tool('test_simple_text', { description: 'Tests simple text content response' },
    () => 'This is a simple text response for testing.');

  mcp.tool('test_image_content', { description: 'Tests image content response' },
    () => content.image(TEST_IMAGE_BASE64, 'image/png'));

  mcp.tool('test_audio_content', { description: 'Tests audio content response' },
    () => content.audio(TEST_AUDIO_BASE64, 'audio/wav'));

  mcp.tool('test_embedded_resource', { description: 'Tests embedded resource content response' },
    () => content.resource({ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }));

  mcp.tool('test_multiple_content_types', { description: 'Tests response with multiple content types (text, image, resource)' },
    () => [
      content.text('Multiple content types test:'),
      content.image(TEST_IMAGE_BASE64, 'image/png'),
      content.resource({
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify({ test: 'data', value: 123 }),
      }),
    ]);

  // == Tools, both eras: logs, progress, errors =================================================
  // Notifications go out on the request's own stream. Logs respect the client's level (2025:
  // logging/setLevel; 2026: only when `_meta` sets io.modelcontextprotocol/logLevel); progress is
  // sent only when the request carries a progressToken.

  mcp.tool('test_tool_with_logging', { description: 'Tests tool that emits log messages during execution' },
    async (_args, ctx) => {
      ctx.log('info', 'Tool execution started');
      await sleep(step, ctx.signal);
      ctx.log('info', 'Tool processing data');
      await sleep(step, ctx.signal);
      ctx.log('info', 'Tool execution completed');
      return 'Tool with logging executed successfully';
    });

  mcp.tool('test_tool_with_progress', { description: 'Tests tool that reports progress notifications' },
    async (_args, ctx) => {
      for (const done of [0, 50, 100]) {
        if (done > 0) await sleep(step, ctx.signal);
        ctx.progress(done, 100, `Completed step ${done} of 100`);
      }
      return 'Tool with progress executed successfully';
    });

  // A throw becomes a tool result with isError (SEP-1303), not a JSON-RPC error.
  mcp.tool('test_error_handling', { description: 'Tests error response handling' }, () => {
    throw new UserError('This tool intentionally returns an error for testing');
  });

  // == Tools, both eras: schemas and transport =================================================

  mcp.tool('json_schema_2020_12_tool', {
    description: 'Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)',
    input: JSON_SCHEMA_2020_12_FIXTURE,
  }, (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`);

  // SEP-2243: `x-mcp-header` mirrors an argument into an `Mcp-Param-*` header; over HTTP the framework
  // rejects a missing or different header with 400 -32020 before the tool runs.
  mcp.tool('test_custom_headers', {
    description: 'Tool whose region argument is mirrored into the Mcp-Param-Region header (SEP-2243)',
    input: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Routing region', 'x-mcp-header': 'Region' },
        query: { type: 'string', description: 'Not mirrored' },
      },
      required: ['region'],
    },
  }, (args) => `Custom headers test completed for region ${String(args.region)}`);

  // SEP-1699 (2025 SSE polling): the tool closes its SSE stream mid-call (after the priming event),
  // so the result reaches the client only on its GET with Last-Event-ID. A no-op on 2026.
  mcp.tool('test_reconnection', {
    description: 'Tests SSE stream disconnection and client reconnection (SEP-1699)',
  }, async (_args, ctx) => {
    ctx.closeStream();
    await sleep(100, ctx.signal);
    return 'Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.';
  });

  // == Tools: asking the client (2025 scenarios) ==============================================
  // On 2025 these send sampling/createMessage or elicitation/create on the call's stream. The same
  // code serves 2026 too: there the question comes back as an input_required result.

  mcp.tool('test_sampling', {
    description: 'Tests server-initiated sampling (LLM completion request)',
    input: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  }, async (args, ctx) => {
    const answer = await ctx.sample(ask(String(args.prompt), 100), { key: 'sampling' });
    return `LLM response: ${textOf(answer)}`;
  });

  mcp.tool('test_elicitation', {
    description: 'Tests server-initiated elicitation (user input request)',
    input: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  }, async (args, ctx) => {
    const answer = await ctx.elicit({
      message: String(args.message),
      requestedSchema: {
        type: 'object',
        properties: { response: { type: 'string', description: "User's response" } },
        required: ['response'],
      },
    }, { key: 'elicitation' });
    return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  });

  // SEP-1034: defaults for every primitive type.
  mcp.tool('test_elicitation_sep1034_defaults', { description: 'Tests elicitation with default values per SEP-1034' },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
          required: [],
        },
      }, { key: 'defaults' });
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    });

  // SEP-1330: the five enum shapes (untitled / titled single, legacy enumNames, untitled / titled multi).
  mcp.tool('test_elicitation_sep1330_enums', { description: 'Tests elicitation with enum schema improvements per SEP-1330' },
    async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              description: 'Select one option with titles',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              description: 'Select one option (legacy)',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              description: 'Select multiple options',
              minItems: 1,
              maxItems: 3,
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              description: 'Select multiple options with titles',
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      }, { key: 'enums' });
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    });

  // == Tools: multi-round input, MRTR (2026 scenarios) =========================================
  // Each `{ key }` names the entry in `inputRequests` / `inputResponses`. A missing answer ends the
  // round with input_required; answers of earlier rounds travel in the signed `requestState`, so the
  // server keeps nothing between rounds. Malformed answers and tampered state never reach the handler.

  mcp.tool('test_input_required_result_elicitation', { description: 'MRTR: returns InputRequiredResult with elicitation request' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_elicitation');
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: form({ name: 'string' }) }, { key: 'user_name' });
      const name = accepted(answer, 'name');
      return typeof name === 'string' ? `Hello, ${name}!` : `No name given (action=${answer.action}).`;
    });

  mcp.tool('test_input_required_result_sampling', { description: 'MRTR: returns InputRequiredResult with sampling request' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_sampling');
      const answer = await ctx.sample(ask('What is the capital of France?', 100), { key: 'sample_request' });
      return `Sampling result: ${textOf(answer)}`;
    });

  mcp.tool('test_input_required_result_list_roots', { description: 'MRTR: returns InputRequiredResult with roots/list request' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_list_roots');
      const { roots } = await ctx.listRoots({ key: 'roots_request' });
      return `Found ${roots.length} root(s)`;
    });

  // The framework always seals a requestState (HMAC-signed, bound to this call); the retry echoes it.
  mcp.tool('test_input_required_result_request_state', { description: 'MRTR: returns InputRequiredResult with requestState' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_request_state');
      const answer = await ctx.elicit({ message: 'Please confirm', requestedSchema: form({ ok: 'boolean' }) }, { key: 'confirm' });
      return `state-ok: requestState validated, confirmed=${accepted(answer, 'ok') === true}`;
    });

  // Questions asked together (Promise.all) come back together in one input_required result.
  mcp.tool('test_input_required_result_multiple_inputs', { description: 'MRTR: returns InputRequiredResult with multiple input requests' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_multiple_inputs');
      const [name, greeting, roots] = await Promise.all([
        ctx.elicit({ message: 'What is your name?', requestedSchema: form({ name: 'string' }) }, { key: 'user_name' }),
        ctx.sample(ask('Generate a greeting', 50), { key: 'greeting' }),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      return `Name: ${String(accepted(name, 'name') ?? 'unknown')}; Greeting: ${textOf(greeting)}; Roots: ${roots.roots.length}`;
    });

  // Questions asked one after the other take one round each; each round gets a new requestState.
  mcp.tool('test_input_required_result_multi_round', { description: 'MRTR: multi-round InputRequiredResult workflow' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_multi_round');
      const step1 = await ctx.elicit({ message: 'Step 1: What is your name?', requestedSchema: form({ name: 'string' }) }, { key: 'step1' });
      const step2 = await ctx.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: form({ color: 'string' }) }, { key: 'step2' });
      return `Multi-round complete for ${String(accepted(step1, 'name') ?? 'friend')} who likes ${String(accepted(step2, 'color') ?? 'no color')}`;
    });

  // A retry whose requestState was altered is rejected by the framework with -32602.
  mcp.tool('test_input_required_result_tampered_state', { description: 'MRTR: HMAC-signed requestState integrity test' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_tampered_state');
      await ctx.elicit({ message: 'Please confirm', requestedSchema: form({ ok: 'boolean' }) }, { key: 'confirm' });
      return 'integrity-ok: state verified';
    });

  // Ask only for what this request's client declared (asking for more would be -32021).
  mcp.tool('test_input_required_result_capabilities', { description: 'MRTR: respects client capabilities in inputRequests' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_capabilities');
      const declared = ctx.client.capabilities;
      const asks: Promise<string>[] = [];
      if (declared.elicitation) {
        asks.push(ctx.elicit({ message: 'Elicitation input', requestedSchema: form({ value: 'string' }) }, { key: 'elicit_input' })
          .then(() => 'elicit_input'));
      }
      if (declared.sampling) {
        asks.push(ctx.sample(ask('Sample request', 50), { key: 'sample_input' }).then(() => 'sample_input'));
      }
      if (asks.length === 0) return 'No supported capabilities declared';
      return `capabilities-ok: received ${(await Promise.all(asks)).join(',')}`;
    });

  // == Tools: 2026 wire diagnostics =============================================================

  // `requires`: a 2026 request whose _meta does not declare sampling is refused with -32021 (HTTP 400)
  // before the handler runs.
  mcp.tool('test_missing_capability', {
    description: 'Test tool requiring the sampling client capability',
    requires: { sampling: {} },
  }, () => 'Success: the client declared the sampling capability');

  // The response stream carries notifications and the result, never a server-to-client request:
  // on 2026 input is gathered with input_required results instead.
  mcp.tool('test_streaming_elicitation', { description: 'Diagnostic tool validating response progress streams' },
    async (_args, ctx) => {
      ctx.progress(50, 100, 'Halfway');
      await sleep(step, ctx.signal);
      ctx.progress(100, 100, 'Done');
      return 'Streaming complete';
    });

  // Silent unless the client asked for logs (2026: `_meta` io.modelcontextprotocol/logLevel).
  mcp.tool('test_logging_tool', { description: 'Diagnostic logging validator tool' }, (_args, ctx) => {
    ctx.log('info', 'test_logging_tool was called');
    return 'Logging tool complete';
  });

  // == Tasks (task-tools.ts): the tasks-* scenarios' tools ===================================
  registerTaskTools(mcp);

  // == Hooks: list changes =====================================================================
  // The suite calls these while a `subscriptions/listen` stream (2026) or a session (2025) is open,
  // and expects notifications/tools|prompts/list_changed. Registering and removing a temporary
  // primitive really changes the list twice, and each change is published on the notification bus,
  // which fans out to every matching listener. The list ends as it began. The suite does not need the
  // hooks listed, but may see them: tools/list stays the same set, in the same order, on every call.

  mcp.tool('test_trigger_tool_change', { description: 'Conformance hook: fires notifications/tools/list_changed' }, () => {
    const remove = mcp.tools.add({ name: 'test_temporary_tool', description: 'Exists for a moment', handler: () => 'temporary' });
    remove();
    return 'Tool list changed';
  });

  mcp.tool('test_trigger_prompt_change', { description: 'Conformance hook: fires notifications/prompts/list_changed' }, () => {
    const remove = mcp.prompts.add({ name: 'test_temporary_prompt', description: 'Exists for a moment', handler: () => 'temporary' });
    remove();
    return 'Prompt list changed';
  });

  // == Resources ================================================================================
  // A reader returns a string (text), `{ blob }` / `{ text }`, bytes, or any value (JSON). An unknown
  // URI is -32602 with data.uri (SEP-2164). `caching` reads the FIRST listed resource: keep static-text first.

  mcp.resource('test://static-text', {
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  }, () => 'This is the content of the static text resource.');

  mcp.resource('test://static-binary', {
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (image) for testing',
    mimeType: 'image/png',
  }, () => ({ blob: TEST_IMAGE_BASE64 }));

  mcp.resourceTemplate('test://template/{id}/data', {
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
    complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) },
  }, (_uri, { id }) => ({ id, templateTest: true, data: `Data for ID: ${String(id)}` }));

  // The target of 2025 resources/subscribe; `mcp.notifyResourceUpdated(uri)` would tell subscribers.
  mcp.resource('test://watched-resource', {
    name: 'watched-resource',
    title: 'Watched Resource',
    description: 'A resource clients can subscribe to',
    mimeType: 'text/plain',
  }, () => 'Watched resource content');

  // == Prompts ==================================================================================
  // A handler returns a string (user text), content blocks, messages or a full GetPromptResult.

  mcp.prompt('test_simple_prompt', { title: 'Simple Test Prompt', description: 'A simple prompt without arguments' },
    () => 'This is a simple prompt for testing.');

  mcp.prompt('test_prompt_with_arguments', {
    title: 'Prompt With Arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    // completion/complete for arg1 (the `completion-complete` scenario types "test").
    complete: {
      arg1: (value) => ['test', 'testValue1', 'testValue2', 'example'].filter((v) => v.startsWith(value)),
    },
  }, ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`);

  mcp.prompt('test_prompt_with_embedded_resource', {
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  }, ({ resourceUri }) => [
    content.resource({ uri: String(resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' }),
    'Please process the embedded resource above.',
  ]);

  mcp.prompt('test_prompt_with_image', { title: 'Prompt With Image', description: 'A prompt that includes image content' },
    () => [content.image(TEST_IMAGE_BASE64, 'image/png'), 'Please analyze the image above.']);

  // MRTR works for prompts/get as well as tools/call.
  mcp.prompt('test_input_required_result_prompt', { description: 'MRTR: prompt that requires elicitation input' },
    async (_args, ctx) => {
      requireModern(ctx, 'test_input_required_result_prompt');
      const answer = await ctx.elicit({
        message: 'What context should the prompt use?',
        requestedSchema: form({ context: 'string' }),
      }, { key: 'user_context' });
      return `Prompt with context: ${String(accepted(answer, 'context') ?? 'none')}`;
    });

  return mcp;
}
