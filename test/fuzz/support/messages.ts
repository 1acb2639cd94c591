/**
 * Fuzz inputs: valid seed messages for every method of both protocol eras (against the conformance
 * fixture), and fast-check arbitraries that mutate them at the value, text and byte level.
 *
 * A message is built as a small tree that may contain two markers the JSON text needs but JS values
 * cannot hold cheaply: `Raw` (a literal such as `1e999` or `-0`, written verbatim) and `Deep` (10k
 * levels of nesting, written with `repeat` so building it never recurses). `toText` writes the tree;
 * the parsed form of a case is always `JSON.parse(toText(tree))`, i.e. exactly what a peer can send.
 */
import fc from 'fast-check';

export const MODERN_VERSION = '2026-07-28';
export const PV = 'io.modelcontextprotocol/protocolVersion';
export const CC = 'io.modelcontextprotocol/clientCapabilities';
export const LL = 'io.modelcontextprotocol/logLevel';
export const modernMeta = (caps: object = {}, extra: object = {}) => ({ [PV]: MODERN_VERSION, [CC]: caps, ...extra });

/** A JSON literal written verbatim (numbers JS cannot round-trip: `-0`, `1e999`, 30-digit integers). */
export class Raw {
  constructor(readonly text: string) {}
}

/** `depth` levels of `open` ... `close` around `leaf`, written without recursion. */
export class Deep {
  constructor(
    readonly open: string,
    readonly close: string,
    readonly depth: number,
    readonly leaf = '1',
  ) {}
}

export type Tree = null | boolean | number | string | Raw | Deep | Tree[] | { [key: string]: Tree };

const isPlain = (v: unknown): v is Record<string, Tree> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Deep);

/** Sets an own data property, so `__proto__` is a key like any other (as JSON.parse makes it). */
export function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function toText(tree: Tree): string {
  if (tree instanceof Raw) return tree.text;
  if (tree instanceof Deep) return tree.open.repeat(tree.depth) + tree.leaf + tree.close.repeat(tree.depth);
  if (Array.isArray(tree)) return `[${tree.map(toText).join(',')}]`;
  if (isPlain(tree)) return `{${Object.keys(tree).map((k) => `${JSON.stringify(k)}:${toText(tree[k]!)}`).join(',')}}`;
  return JSON.stringify(tree) ?? 'null';
}

/** Deep copy of a seed (seeds hold only plain JSON, markers are immutable and shared). */
function clone(tree: Tree): Tree {
  if (Array.isArray(tree)) return tree.map(clone);
  if (isPlain(tree)) {
    const out: Record<string, Tree> = {};
    for (const k of Object.keys(tree)) put(out, k, clone(tree[k]!));
    return out;
  }
  return tree;
}

// ---- seeds ------------------------------------------------------------------------------------

export const TOOL_NAMES = [
  'test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource', 'test_multiple_content_types',
  'test_tool_with_logging', 'test_tool_with_progress', 'test_error_handling', 'json_schema_2020_12_tool', 'test_reconnection',
  'test_sampling', 'test_elicitation', 'test_elicitation_sep1034_defaults', 'test_elicitation_sep1330_enums',
  'test_input_required_result_elicitation', 'test_input_required_result_sampling', 'test_input_required_result_list_roots',
  'test_input_required_result_request_state', 'test_input_required_result_multiple_inputs', 'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state', 'test_input_required_result_capabilities', 'test_missing_capability',
  'test_streaming_elicitation', 'test_logging_tool', 'test_trigger_tool_change', 'test_trigger_prompt_change',
] as const;

const TOOL_ARGS: Record<string, Tree> = {
  json_schema_2020_12_tool: { name: 'Ada', contactMethod: 'email', email: 'ada@example.com', address: { street: 'Main', city: 'X' } },
  test_sampling: { prompt: 'Say hi' },
  test_elicitation: { message: 'Your name?' },
};

const PROMPTS: [string, Tree][] = [
  ['test_simple_prompt', {}],
  ['test_prompt_with_arguments', { arg1: 'a', arg2: 'b' }],
  ['test_prompt_with_embedded_resource', { resourceUri: 'test://static-text' }],
  ['test_prompt_with_image', {}],
  ['test_input_required_result_prompt', {}],
];

const URIS = ['test://static-text', 'test://static-binary', 'test://template/123/data', 'test://watched-resource', 'test://missing'];

const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} };
const ANSWERS: Record<string, Tree> = {
  user_name: { action: 'accept', content: { name: 'Ada' } },
  confirm: { action: 'accept', content: { ok: true } },
  step1: { action: 'accept', content: { name: 'Ada' } },
  step2: { action: 'decline' },
  sample_request: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' },
  greeting: { role: 'assistant', content: [{ type: 'text', text: 'hello' }], model: 'm' },
  roots_request: { roots: [{ uri: 'file:///tmp' }] },
  client_roots: { roots: [] },
  user_context: { action: 'cancel' },
  elicit_input: { action: 'accept', content: { value: 'v' } },
  sample_input: { role: 'assistant', content: { type: 'text', text: 's' }, model: 'm' },
};

let seedId = 0;
const req = (method: string, params?: Tree): Tree => {
  const id = ++seedId % 3 === 0 ? `s-${seedId}` : seedId;
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
};
const note = (method: string, params?: Tree): Tree =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

function legacySeeds(): Tree[] {
  const out: Tree[] = [
    req('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } }, clientInfo: { name: 'fuzz', version: '1' } }),
    req('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '0' } }),
    req('ping'),
    req('logging/setLevel', { level: 'debug' }),
    req('resources/subscribe', { uri: 'test://watched-resource' }),
    req('resources/unsubscribe', { uri: 'test://watched-resource' }),
    req('tools/list'),
    req('tools/list', { cursor: 'bW0xOjE' }),
    req('prompts/list'),
    req('resources/list'),
    req('resources/templates/list'),
    req('completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } }),
    req('completion/complete', { ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '1' }, context: { arguments: {} } }),
    note('notifications/initialized'),
    note('notifications/cancelled', { requestId: 1, reason: 'user' }),
    note('notifications/progress', { progressToken: 't', progress: 1 }),
    note('notifications/roots/list_changed'),
    { jsonrpc: '2.0', id: 'mm-unknown', result: {} },
    { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'nope' } },
  ];
  for (const name of TOOL_NAMES) out.push(req('tools/call', { name, arguments: TOOL_ARGS[name] ?? {}, _meta: { progressToken: `p-${name}` } }));
  for (const [name, args] of PROMPTS) out.push(req('prompts/get', { name, arguments: args }));
  for (const uri of URIS) out.push(req('resources/read', { uri }));
  return out;
}

function modernSeeds(): Tree[] {
  const m = (caps: object = {}, extra: object = {}) => modernMeta(caps, extra) as Tree;
  const out: Tree[] = [
    req('server/discover', { _meta: m() }),
    req('subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://watched-resource'] }, _meta: m() }),
    req('tools/list', { _meta: m() }),
    req('prompts/list', { _meta: m() }),
    req('resources/list', { _meta: m() }),
    req('resources/templates/list', { _meta: m() }),
    req('completion/complete', { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 't' }, _meta: m() }),
    // Methods 2026 removed: -32601.
    req('initialize', { protocolVersion: MODERN_VERSION, capabilities: {}, clientInfo: { name: 'x', version: '1' }, _meta: m() }),
    req('ping', { _meta: m() }),
    req('logging/setLevel', { level: 'info', _meta: m() }),
    req('resources/subscribe', { uri: 'test://watched-resource', _meta: m() }),
    // The 2026 ladder: wrong version, missing fields.
    req('tools/list', { _meta: { [PV]: '2099-01-01', [CC]: {} } }),
    req('tools/list', { _meta: { [PV]: MODERN_VERSION } }),
    req('tools/call', { name: 'test_logging_tool', arguments: {}, _meta: m({}, { [LL]: 'debug' }) }),
    note('notifications/cancelled', { requestId: 's-1', _meta: m() }),
  ];
  for (const name of TOOL_NAMES) {
    out.push(req('tools/call', { name, arguments: TOOL_ARGS[name] ?? {}, _meta: m(ALL_CAPS, { progressToken: 7 }) }));
  }
  // MRTR retries with answers, and with forged or stale requestState.
  for (const name of TOOL_NAMES.filter((n) => n.startsWith('test_input_required_result'))) {
    out.push(req('tools/call', { name, arguments: {}, inputResponses: clone(ANSWERS as Tree), _meta: m(ALL_CAPS) }));
    out.push(req('tools/call', { name, arguments: {}, inputResponses: {}, requestState: 'eyJ2IjoxfQ.AAAA', _meta: m(ALL_CAPS) }));
  }
  for (const [name, args] of PROMPTS) out.push(req('prompts/get', { name, arguments: args, _meta: m(ALL_CAPS) }));
  out.push(req('prompts/get', { name: 'test_input_required_result_prompt', arguments: {}, inputResponses: { user_context: { action: 'accept', content: { context: 'c' } } }, _meta: m(ALL_CAPS) }));
  for (const uri of URIS) out.push(req('resources/read', { uri, _meta: m() }));
  return out;
}

export const SEEDS: readonly Tree[] = [...legacySeeds(), ...modernSeeds()];

// ---- value-level mutation ---------------------------------------------------------------------

/** Strings that cannot be mistaken for a leaked path or stack frame when echoed back. */
export const safeString = fc
  .string({ unit: 'grapheme', maxLength: 24 })
  .filter((s) => !/\bat |\/work\/|node_modules|\.ts:/.test(s));

function objWith(key: string, value: Tree): Tree {
  const o: Record<string, Tree> = {};
  put(o, key, value);
  return o;
}

const POLLUTER: Tree = { polluted: 'yes', toString: 'polluted', isAdmin: true };

/** Objects whose String() throws (no callable toString / valueOf), as JSON can spell them. */
export const TO_STRING_TRAPS: Tree[] = [{ toString: 1 }, { toString: null, valueOf: null }, [{ toString: 0 }], { valueOf: {}, toString: {} }];

const hugeString = fc.constantFrom(10_000, 100_000, 1_000_000).map((n) => 'A'.repeat(n));
const deepValue = fc
  .record({ depth: fc.integer({ min: 500, max: 12_000 }), kind: fc.constantFrom('obj', 'arr', 'mixed') })
  .map(({ depth, kind }) =>
    kind === 'obj' ? new Deep('{"a":', '}', depth) : kind === 'arr' ? new Deep('[', ']', depth) : new Deep('{"a":[', ']}', depth, '"x"'));

export const hostileValue: fc.Arbitrary<Tree> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Tree>(null, true, false, 0, -1, 1.5, '', 'x', [], {}, '2.0', 'tools/call', 'test_simple_text') },
  { weight: 3, arbitrary: fc.constantFrom(...['-0', '1e999', '-1e999', '1e-400', '123456789012345678901234567890', '9007199254740993', '1.0', '0.1e1'].map((t) => new Raw(t))) },
  { weight: 3, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.maxSafeInteger()) },
  { weight: 4, arbitrary: safeString },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepValue },
  { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype').map((k) => objWith(k, clone(POLLUTER))) },
  { weight: 1, arbitrary: fc.constant(objWith('constructor', { prototype: clone(POLLUTER) })) },
  { weight: 2, arbitrary: fc.constantFrom(...TO_STRING_TRAPS) },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree> },
);

export const interestingKey = fc.oneof(
  fc.constantFrom(
    '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'then',
    'id', 'method', 'params', 'result', 'error', 'jsonrpc', '_meta', PV, CC, LL, 'io.modelcontextprotocol/clientInfo',
    'progressToken', 'requestState', 'inputResponses', 'arguments', 'cursor', 'name', 'uri', 'level', 'requestId', 'reason',
  ),
  safeString,
);

const METHOD_NAMES = [
  'initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'server/discover',
  'subscriptions/listen', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list',
  'resources/templates/list', 'resources/read', 'completion/complete', 'notifications/cancelled', 'notifications/initialized',
  'tasks/get', 'Tools/Call', 'tools/call ', '', '__proto__', 'constructor', 'toString', 'hasOwnProperty',
];

export type Op =
  | { kind: 'set'; at: number; value: Tree }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: Tree }
  | { kind: 'method'; value: Tree }
  | { kind: 'id'; value: Tree }
  | { kind: 'dropId' }
  | { kind: 'jsonrpc'; value: Tree }
  | { kind: 'batch' };

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: hostileValue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: interestingKey, value: hostileValue }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('method' as const), value: fc.oneof(fc.constantFrom<Tree>(...METHOD_NAMES), hostileValue) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('id' as const), value: hostileValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'dropId' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('jsonrpc' as const), value: hostileValue }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'batch' as const }) },
);

type Slot = { parent: Record<string, Tree> | Tree[]; key: string | number };

function slots(tree: Tree, out: Slot[] = [], objects: Record<string, Tree>[] = []): { slots: Slot[]; objects: Record<string, Tree>[] } {
  if (Array.isArray(tree)) tree.forEach((child, i) => (out.push({ parent: tree, key: i }), slots(child, out, objects)));
  else if (isPlain(tree)) {
    objects.push(tree);
    for (const k of Object.keys(tree)) (out.push({ parent: tree, key: k }), slots(tree[k]!, out, objects));
  }
  return { slots: out, objects };
}

export function mutate(seed: Tree, ops: readonly Op[]): Tree {
  let tree = clone(seed);
  for (const op of ops) {
    const root = isPlain(tree) ? tree : undefined;
    switch (op.kind) {
      case 'set': {
        const { slots: all } = slots(tree);
        if (all.length === 0) tree = clone(op.value);
        else {
          const s = all[op.at % all.length]!;
          if (Array.isArray(s.parent)) s.parent[s.key as number] = clone(op.value);
          else put(s.parent, s.key as string, clone(op.value));
        }
        break;
      }
      case 'delete': {
        const all = slots(tree).slots.filter((s) => !Array.isArray(s.parent));
        const s = all.length ? all[op.at % all.length]! : undefined;
        if (s) delete (s.parent as Record<string, Tree>)[s.key as string];
        break;
      }
      case 'add': {
        const { objects } = slots(tree);
        const target = objects.length ? objects[op.at % objects.length]! : undefined;
        if (target) put(target, op.key, clone(op.value));
        break;
      }
      case 'method':
        if (root) put(root, 'method', clone(op.value));
        break;
      case 'id':
        if (root) put(root, 'id', clone(op.value));
        break;
      case 'dropId':
        if (root) delete root.id;
        break;
      case 'jsonrpc':
        if (root) put(root, 'jsonrpc', clone(op.value));
        break;
      case 'batch':
        tree = [tree];
        break;
    }
  }
  return tree;
}

// ---- text and byte level mutation -------------------------------------------------------------

export type TextOp =
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'replace'; at: number; text: string }
  | { kind: 'wrap'; before: string; after: string };

const textBits = fc.constantFrom(
  '{', '}', '[', ']', '"', '\\', ',', ':', '\ud800', '\udfff', '\u0000', '\ufeff', ' ', '\t', 'null', '"__proto__":1,', '\\u0000', '\\ud800',
);
export const textOpArb: fc.Arbitrary<TextOp> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(textBits, safeString) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: textBits }),
  fc.record({ kind: fc.constant('wrap' as const), before: fc.constantFrom('', ' ', '\ufeff', '\t', '[', '{"a":'), after: fc.constantFrom('', ' ', '}', ']', ',{}', '{}', 'x') }),
);

export function mutateText(text: string, ops: readonly TextOp[]): string {
  let t = text;
  for (const op of ops) {
    const at = t.length ? op.kind === 'wrap' ? 0 : (op as { at: number }).at % (t.length + 1) : 0;
    if (op.kind === 'truncate') t = t.slice(0, at);
    else if (op.kind === 'insert') t = t.slice(0, at) + op.text + t.slice(at);
    else if (op.kind === 'replace') t = t.slice(0, at) + op.text + t.slice(at + 1);
    else t = op.before + t + op.after;
  }
  return t;
}

/** Byte mutations for transports (invalid UTF-8 among them). Never inserts '\n' (the stdio frame). */
export type ByteOp = { kind: 'set' | 'insert'; at: number; byte: number } | { kind: 'cut'; at: number };
const badByte = fc.oneof(fc.constantFrom(0xff, 0xfe, 0xc0, 0xc1, 0x80, 0xbf, 0xed, 0xf5, 0xe2, 0xf0, 0x00, 0x0d), fc.integer({ min: 0, max: 255 }))
  .map((b) => (b === 0x0a ? 0x0b : b));
export const byteOpArb: fc.Arbitrary<ByteOp> = fc.oneof(
  fc.record({ kind: fc.constantFrom('set' as const, 'insert' as const), at: fc.nat(), byte: badByte }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
);

export function mutateBytes(bytes: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  let b = Buffer.from(bytes);
  for (const op of ops) {
    const at = b.length ? op.at % b.length : 0;
    if (op.kind === 'cut') b = b.subarray(0, at);
    else if (op.kind === 'set' && b.length) b[at] = op.byte;
    else b = Buffer.concat([b.subarray(0, at), Buffer.from([op.byte]), b.subarray(at)]);
  }
  return b;
}

// ---- one fuzz case ----------------------------------------------------------------------------

export interface Case {
  seed: Tree;
  ops: Op[];
  textOps: TextOp[];
}

/** Mostly one or two value mutations; a fifth of the cases also break the text; some stay valid. */
export const caseArb: fc.Arbitrary<Case> = fc.record({
  seed: fc.constantFrom(...SEEDS),
  ops: fc.array(opArb, { minLength: 0, maxLength: 3 }),
  textOps: fc.oneof({ weight: 4, arbitrary: fc.constant<TextOp[]>([]) }, { weight: 1, arbitrary: fc.array(textOpArb, { minLength: 1, maxLength: 2 }) }),
});

export const caseText = (c: Case): string => mutateText(toText(mutate(c.seed, c.ops)), c.textOps);
