/** The built-in request methods: each with the eras it exists in, its capability gate and its handler (see table.ts). */
import type { CacheSettings, Core, MethodCall, MethodSpec } from '../request/core.js';
import { listen } from './subscriptions-listen.js';
import { ErrorCode, ProtocolError, invalidParams } from '../protocol/errors.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { checkParamHeaders } from '../protocol/standard-headers.js';
import { negotiateHandshakeVersion } from '../protocol/revisions/handshake.js';
import { META, STATELESS_VERSIONS } from '../protocol/versions.js';
import { complete } from '../primitives/completions.js';
import { paginate } from '../primitives/pagination.js';
import { own } from '../platform/own.js';
import { renderPrompt } from '../primitives/prompts.js';
import { runTool } from '../primitives/tools.js';
import { hasCapability } from '../context/client-requests.js';
import { clientInfoOf } from '../signing/session-ids.js';
import { levelRank, type ClientCapabilities, type LoggingLevel } from '../protocol/mcp-types.js';
import { TASK_METHODS } from '../tasks/methods.js';
import { planTask } from '../tasks/plan.js';
import type { MaybePromise } from '../protocol/mcp-types.js';

/** Real URIs stay far below this; template matching costs time linear in the length, per template. */
const MAX_URI_LENGTH = 8_192;

const stringParam = (params: JsonObject, name: string): string => {
  const value = params[name];
  if (typeof value !== 'string') throw invalidParams(`params.${name} must be a string`);
  return value;
};

const advertised = (capability: string) => (core: Core<any>): boolean => core.capabilities('handshake')[capability] !== undefined;
const hasTools = advertised('tools');
const hasPrompts = advertised('prompts');
const hasResources = advertised('resources');
const hasCompletions = advertised('completions');

/**
 * One page of the list this caller may see. When visibility rules apply, the list depends on who
 * asks, so 2026 cache hints turn private (every page alike: the rules, not the page, decide).
 */
function page(call: MethodCall<any>, core: Core<any>, key: keyof CacheSettings, items: readonly JsonObject[], personal: boolean): JsonObject {
  const { page: slice, nextCursor } = paginate(items, call.params.cursor, core.settings.pageSize);
  const result: JsonObject = nextCursor === undefined ? { [key]: slice } : { [key]: slice, nextCursor };
  if (personal && call.revision.caches) result.cacheScope = 'private'; // the ttlMs still comes from the settings
  return result;
}

/** Synchronous when the tool is: the dispatcher then answers without a single promise. */
function callTool(core: Core<any>, call: MethodCall<any>): JsonObject | Promise<JsonObject> {
  const name = stringParam(call.params, 'name');
  const tool = core.tools.find(name, call.ctx);
  if (!tool) throw invalidParams(`Unknown tool: '${name}'`);
  const args = call.params.arguments ?? {};
  if (!isObject(args)) throw invalidParams('params.arguments must be an object');
  if (call.revision.standardHeaders && call.headers && tool.paramHeaders.length) {
    const mismatch = checkParamHeaders(tool.paramHeaders, args as JsonObject, call.headers);
    if (mismatch) throw mismatch;
  }
  if (tool.requires && !call.revision.sessions && !hasCapability(call.ctx.client.capabilities, tool.requires)) {
    throw new ProtocolError(
      ErrorCode.MissingRequiredClientCapability,
      `Tool '${name}' needs the client capability ${Object.keys(tool.requires).join(', ')}`,
      { requiredCapabilities: tool.requires },
      400,
    );
  }
  if (tool.task !== 'forbidden') planTask(core, call, tool, name);
  return runTool(tool, args as JsonObject, call.ctx, call, core.settings) as unknown as JsonObject | Promise<JsonObject>;
}

async function completion(core: Core<any>, call: MethodCall<any>): Promise<JsonObject> {
  const ref = call.params.ref as JsonObject | undefined;
  const argument = call.params.argument as JsonObject | undefined;
  if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('params.argument needs a string name and value');
  }
  const context = completionContext(call.params.context);
  let completers;
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = core.prompts.find(ref.name, call.ctx);
    if (!prompt) throw invalidParams(`Unknown prompt: '${ref.name}'`);
    completers = prompt.complete;
  } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = core.resources.findTemplate(ref.uri, call.ctx);
    if (!template) throw invalidParams(`Unknown resource template: ${ref.uri}`);
    completers = template.complete;
  } else {
    throw invalidParams('params.ref must be a ref/prompt with a name or a ref/resource with a uri');
  }
  return { completion: await complete(own(completers, argument.name), argument.value, context) };
}

/** `params.context.arguments`: the values already chosen, strings by name (a completer reads them). */
function completionContext(context: unknown): Record<string, string> {
  if (context === undefined) return {};
  const args = isObject(context) ? context.arguments : undefined;
  if (args === undefined) return {};
  if (!isObject(args) || !Object.values(args).every((v) => typeof v === 'string')) {
    throw invalidParams('params.context.arguments must be an object of strings');
  }
  return args as Record<string, string>;
}

function initialize(core: Core<any>, call: MethodCall<any>): JsonObject {
  const protocolVersion = negotiateHandshakeVersion(call.params.protocolVersion);
  if (call.connection) {
    call.connection.protocolVersion = protocolVersion;
    call.connection.clientCapabilities = (call.params.capabilities ?? {}) as ClientCapabilities;
    call.connection.clientInfo = clientInfoOf(call.params.clientInfo);
  }
  const result: JsonObject = { protocolVersion, capabilities: core.capabilities('handshake', call.ctx), serverInfo: core.info };
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
  return (core: Core<any>, call: MethodCall<any>): JsonObject | Promise<JsonObject> => {
    const uri = stringParam(call.params, 'uri');
    // A subscription is kept for the session's life: no longer a URI than resources/read would take.
    if (uri.length > MAX_URI_LENGTH) throw invalidParams(`params.uri is longer than ${MAX_URI_LENGTH} characters`, { bound: 'maxUriLength' });
    // A URI only hidden resources serve is answered as an unknown one, and never recorded: no updates leak.
    if (add && core.resources.hiddenFrom(uri, call.ctx)) return {};
    return afterSaving(call.remember(add ? { subscribe: uri } : { unsubscribe: uri }));
  };
}

function discover(core: Core<any>, call: MethodCall<any>): JsonObject {
  const result: JsonObject = { supportedVersions: [...STATELESS_VERSIONS], capabilities: core.capabilities('stateless', call.ctx) };
  if (core.instructions !== undefined) result.instructions = core.instructions;
  result._meta = { [META.serverInfo]: core.info };
  return result;
}

/** Registered into every server's method table at construction. */
export const BUILT_IN_METHODS: readonly (readonly [string, MethodSpec])[] = [
  ['initialize', { eras: 'handshake', run: initialize }],
  ['ping', { eras: 'handshake', run: () => ({}) }],
  ['logging/setLevel', { eras: 'handshake', run: setLevel }],
  ['resources/subscribe', { eras: 'handshake', enabled: hasResources, run: subscription(true) }],
  ['resources/unsubscribe', { eras: 'handshake', enabled: hasResources, run: subscription(false) }],
  ['server/discover', { eras: 'stateless', cache: 'discover', run: discover }],
  ['subscriptions/listen', { eras: 'stateless', stream: true, run: listen }],
  ['tools/list', { eras: 'both', enabled: hasTools, cache: 'tools', run: (c, call) => page(call, c, 'tools', c.tools.listFor(call.ctx), c.tools.personal) }],
  ['tools/call', { eras: 'both', enabled: hasTools, mrtr: true, run: callTool }],
  ['prompts/list', {
    eras: 'both', enabled: hasPrompts, cache: 'prompts',
    run: (c, call) => page(call, c, 'prompts', c.prompts.listFor(call.ctx), c.prompts.personal),
  }],
  ['prompts/get', {
    eras: 'both', enabled: hasPrompts, mrtr: true,
    run: async (c, call) => {
      const name = stringParam(call.params, 'name');
      const prompt = c.prompts.find(name, call.ctx);
      if (!prompt) throw invalidParams(`Unknown prompt: '${name}'`);
      return (await renderPrompt(prompt, call.params.arguments, call.ctx)) as unknown as JsonObject;
    },
  }],
  ['resources/list', {
    eras: 'both', enabled: hasResources, cache: 'resources',
    run: (c, call) => page(call, c, 'resources', c.resources.listFor(call.ctx), c.resources.personal),
  }],
  ['resources/templates/list', {
    eras: 'both', enabled: hasResources, cache: 'resourceTemplates',
    run: (c, call) => page(call, c, 'resourceTemplates', c.resources.listTemplatesFor(call.ctx), c.resources.personal),
  }],
  ['resources/read', {
    eras: 'both', enabled: hasResources, cache: 'reads', mrtr: true,
    run: async (c, call) => {
      const uri = stringParam(call.params, 'uri');
      // Template matching is linear in the URI's length, but a multi-megabyte URI is never a real one.
      if (uri.length > MAX_URI_LENGTH) {
        throw invalidParams(`Resource not found: the URI is longer than ${MAX_URI_LENGTH} characters`, { uri });
      }
      const { result, cache, personal } = await c.resources.read(uri, call.ctx);
      if (!call.revision.caches) return result as unknown as JsonObject;
      // A resource's own hint wins over the server-wide one (shape() lets fields already set stand);
      // one that only some callers may read is never cached publicly.
      const hint = personal ? { ttlMs: (cache ?? c.settings.cache.reads).ttlMs, cacheScope: 'private' } : cache;
      return (hint ? { ...result, ...hint } : result) as unknown as JsonObject;
    },
  }],
  ['completion/complete', { eras: 'both', enabled: hasCompletions, run: completion }],
  ...TASK_METHODS,
];
