/** The method table: each MCP request method, the eras it exists in, its capability gate and its handler. */
import { notificationOf, type BusEvent } from './state/bus.js';
import type { MaybePromise } from './state/answers.js';
import type { CacheSettings, Core, MethodCall, Send } from './core.js';
import { overloaded } from './request/limits.js';
import { ErrorCode, ProtocolError, invalidParams, internalError } from './protocol/errors.js';
import { isObject, type JsonObject } from './protocol/jsonrpc.js';
import { checkParamHeaders } from './protocol/standard-headers.js';
import { META, MODERN_VERSIONS, negotiateLegacyVersion } from './protocol/versions.js';
import { complete } from './primitives/completions.js';
import { paginate } from './primitives/pagination.js';
import { renderPrompt } from './primitives/prompts.js';
import { runTool } from './primitives/tools.js';
import { hasCapability } from './context/client-requests.js';
import { clientInfoOf } from './context/sessions.js';
import { levelRank, type ClientCapabilities, type LoggingLevel } from './types.js';

export interface MethodSpec {
  /** Which eras serve it: 2026 removed some methods and added others. */
  readonly eras: 'legacy' | 'modern' | 'both';
  /** The capability gate: a method behind an unadvertised capability is -32601. */
  readonly enabled?: (core: Core<any>) => boolean;
  /** 2026 cache hints stamped on its result. */
  readonly cache?: keyof CacheSettings;
  /** 2026: may answer `input_required` (MRTR). */
  readonly mrtr?: boolean;
  /** Long-lived (listen): no idle timeout, no concurrency slot. */
  readonly stream?: boolean;
  run(core: Core<any>, call: MethodCall<any>): Promise<JsonObject> | JsonObject;
}

const MAX_URI_LENGTH = 65_536;

const stringParam = (params: JsonObject, name: string): string => {
  const value = params[name];
  if (typeof value !== 'string') throw invalidParams(`params.${name} must be a string`);
  return value;
};

const advertised = (capability: string) => (core: Core<any>): boolean => core.capabilities('legacy')[capability] !== undefined;
const hasTools = advertised('tools');
const hasPrompts = advertised('prompts');
const hasResources = advertised('resources');
const hasCompletions = advertised('completions');

function page(core: Core<any>, key: string, items: readonly JsonObject[], params: JsonObject): JsonObject {
  const { page: slice, nextCursor } = paginate(items, params.cursor, core.settings.pageSize);
  return nextCursor === undefined ? { [key]: slice } : { [key]: slice, nextCursor };
}

/** Synchronous when the tool is: the dispatcher then answers without a single promise. */
function callTool(core: Core<any>, call: MethodCall<any>): JsonObject | Promise<JsonObject> {
  const name = stringParam(call.params, 'name');
  const tool = core.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: '${name}'`);
  const args = call.params.arguments ?? {};
  if (!isObject(args)) throw invalidParams('params.arguments must be an object');
  if (call.era === 'modern' && call.headers && tool.paramHeaders.length) {
    const mismatch = checkParamHeaders(tool.paramHeaders, args as JsonObject, call.headers);
    if (mismatch) throw mismatch;
  }
  if (tool.requires && call.era === 'modern' && !hasCapability(call.ctx.client.capabilities, tool.requires)) {
    throw new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `Tool '${name}' needs the client capability ${Object.keys(tool.requires).join(', ')}`,
      { requiredCapabilities: tool.requires },
      400,
    );
  }
  return runTool(tool, args as JsonObject, call.ctx, call) as unknown as JsonObject | Promise<JsonObject>;
}

async function completion(core: Core<any>, call: MethodCall<any>): Promise<JsonObject> {
  const ref = call.params.ref as JsonObject | undefined;
  const argument = call.params.argument as JsonObject | undefined;
  if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('params.argument needs a string name and value');
  }
  const context = (call.params.context as JsonObject | undefined)?.arguments as Record<string, string> | undefined;
  let completers;
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = core.prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: '${ref.name}'`);
    completers = prompt.complete;
  } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = core.resources.findTemplate(ref.uri);
    if (!template) throw invalidParams(`Unknown resource template: ${ref.uri}`);
    completers = template.complete;
  } else {
    throw invalidParams('params.ref must be a ref/prompt with a name or a ref/resource with a uri');
  }
  return { completion: await complete(completers?.[argument.name], argument.value, context ?? {}) };
}

function initialize(core: Core<any>, call: MethodCall<any>): JsonObject {
  const protocolVersion = negotiateLegacyVersion(call.params.protocolVersion);
  if (call.connection) {
    call.connection.protocolVersion = protocolVersion;
    call.connection.clientCapabilities = (call.params.capabilities ?? {}) as ClientCapabilities;
    call.connection.clientInfo = clientInfoOf(call.params.clientInfo);
  }
  const result: JsonObject = { protocolVersion, capabilities: core.capabilities('legacy'), serverInfo: core.info };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  return result;
}

function setLevel(_core: Core<any>, call: MethodCall<any>): JsonObject | Promise<JsonObject> {
  const level = call.params.level;
  if (typeof level !== 'string' || levelRank(level) < 0) throw invalidParams(`Invalid log level: ${typeof level === 'string' || typeof level === 'number' ? level : typeof level}`);
  return afterSaving(call.remember({ logLevel: level as LoggingLevel }));
}

/** An empty result once the session change is kept (at once in memory). */
function afterSaving(saving: MaybePromise<void>): JsonObject | Promise<JsonObject> {
  return saving instanceof Promise ? saving.then(() => ({})) : {};
}

function subscription(add: boolean) {
  return (_core: Core<any>, call: MethodCall<any>): JsonObject | Promise<JsonObject> => {
    const uri = stringParam(call.params, 'uri');
    return afterSaving(call.remember(add ? { subscribe: uri } : { unsubscribe: uri }));
  };
}

function discover(core: Core<any>): JsonObject {
  const result: JsonObject = { supportedVersions: [...MODERN_VERSIONS], capabilities: core.capabilities('modern') };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  result._meta = { [META.serverInfo]: core.info };
  return result;
}

/** Which bus events a `subscriptions/listen` filter asked for (only what we can honour). */
function honoured(filter: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (filter[key] === true) out[key] = true;
  }
  const uris = filter.resourceSubscriptions;
  if (Array.isArray(uris) && uris.every((u) => typeof u === 'string')) out.resourceSubscriptions = uris;
  return out;
}

function wants(filter: JsonObject, event: BusEvent): boolean {
  switch (event.type) {
    case 'tools/list_changed': return filter.toolsListChanged === true;
    case 'prompts/list_changed': return filter.promptsListChanged === true;
    case 'resources/list_changed': return filter.resourcesListChanged === true;
    case 'resources/updated': return (filter.resourceSubscriptions as string[] | undefined)?.includes(event.uri) === true;
  }
}

/** 2026 `subscriptions/listen`: an acknowledgement, then tagged notifications until the client goes away. */
async function listen(core: Core<any>, call: MethodCall<any>): Promise<JsonObject> {
  const send = call.send;
  if (!send) throw internalError('subscriptions/listen needs a streaming transport');
  const filter = call.params.notifications;
  if (!isObject(filter)) throw invalidParams('params.notifications must be an object');
  // Streams hold no concurrency slot, so they have a cap of their own.
  if (core.streams.open >= core.streams.max) throw overloaded();
  core.streams.open++;
  try {
    return await stream(core, call, send, filter as JsonObject);
  } finally {
    core.streams.open--;
  }
}

async function stream(core: Core<any>, call: MethodCall<any>, send: Send, filter: JsonObject): Promise<JsonObject> {
  const subscriptionId = call.id;
  const tag = { [META.subscriptionId]: subscriptionId };
  const chosen = honoured(filter);
  send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: tag, notifications: chosen } });
  const unsubscribe = core.state.bus.subscribe((event) => {
    if (!wants(chosen, event)) return;
    const { method, params } = notificationOf(event);
    send({ jsonrpc: '2.0', method, params: { ...params, _meta: tag } });
  });
  const signal = call.ctx.signal;
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  unsubscribe();
  return { _meta: tag };
}

export const METHODS = new Map<string, MethodSpec>([
  ['initialize', { eras: 'legacy', run: initialize }],
  ['ping', { eras: 'legacy', run: () => ({}) }],
  ['logging/setLevel', { eras: 'legacy', run: setLevel }],
  ['resources/subscribe', { eras: 'legacy', enabled: hasResources, run: subscription(true) }],
  ['resources/unsubscribe', { eras: 'legacy', enabled: hasResources, run: subscription(false) }],
  ['server/discover', { eras: 'modern', cache: 'discover', run: discover }],
  ['subscriptions/listen', { eras: 'modern', stream: true, run: listen }],
  ['tools/list', { eras: 'both', enabled: hasTools, cache: 'tools', run: (c, call) => page(c, 'tools', c.tools.list(), call.params) }],
  ['tools/call', { eras: 'both', enabled: hasTools, mrtr: true, run: callTool }],
  ['prompts/list', { eras: 'both', enabled: hasPrompts, cache: 'prompts', run: (c, call) => page(c, 'prompts', c.prompts.list(), call.params) }],
  ['prompts/get', {
    eras: 'both', enabled: hasPrompts, mrtr: true,
    run: async (c, call) => {
      const name = stringParam(call.params, 'name');
      const prompt = c.prompts.get(name);
      if (!prompt) throw invalidParams(`Unknown prompt: '${name}'`);
      return (await renderPrompt(prompt, call.params.arguments, call.ctx)) as unknown as JsonObject;
    },
  }],
  ['resources/list', { eras: 'both', enabled: hasResources, cache: 'resources', run: (c, call) => page(c, 'resources', c.resources.list(), call.params) }],
  ['resources/templates/list', {
    eras: 'both', enabled: hasResources, cache: 'resourceTemplates',
    run: (c, call) => page(c, 'resourceTemplates', c.resources.listTemplates(), call.params),
  }],
  ['resources/read', {
    eras: 'both', enabled: hasResources, cache: 'reads', mrtr: true,
    run: async (c, call) => {
      const uri = stringParam(call.params, 'uri');
      // Template matching is linear in the URI's length, but a multi-megabyte URI is never a real one.
      if (uri.length > MAX_URI_LENGTH) {
        throw invalidParams(`Resource not found: the URI is longer than ${MAX_URI_LENGTH} characters`, { uri });
      }
      const { result, cache } = await c.resources.read(uri, call.ctx);
      // A resource's own hint wins over the server-wide one (shape() lets fields already set stand).
      return (call.era === 'modern' && cache ? { ...result, ...cache } : result) as unknown as JsonObject;
    },
  }],
  ['completion/complete', { eras: 'both', enabled: hasCompletions, run: completion }],
]);
