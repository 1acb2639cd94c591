/**
 * The oracle every fuzzed answer must satisfy (shared/errors.md): how many replies, their shape, the
 * code, the id, no leaked internals; plus the process-level checks (no unhandled rejections or
 * exceptions, Object.prototype untouched) and a registry of known bugs (each has its own `it.fails`
 * test) so the suite stays green until they are fixed, while every hit is still counted.
 */
import { CC, PV } from './messages.js';

export const ALLOWED_CODES = new Set([-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022]);

/** The -32603 answers the fixture may legitimately produce; any other -32603 is an unexpected internal failure. */
const EXPECTED_INTERNAL = [
  /^Request timed out after \d+ ms without progress$/,
  /^Server overloaded: too many concurrent requests, retry later$/,
  /^subscriptions\/listen needs a streaming transport$/,
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v));

export type Expectation = { replies: 0 } | { replies: 1; id: string | number | null };

/** How many replies a message must get, mirroring JSON-RPC 2.0 and errors.md §4. */
export function expectationOf(parsed: { ok: true; value: unknown } | { ok: false }): Expectation {
  if (!parsed.ok) return { replies: 1, id: null };
  const v = parsed.value;
  if (!isObject(v)) return { replies: 1, id: null };
  const hasId = 'id' in v;
  const notification = !hasId && v.jsonrpc === '2.0' && typeof v.method === 'string' && (v.params === undefined || isObject(v.params));
  if (notification) return { replies: 0 };
  return { replies: 1, id: hasId && isId(v.id) ? v.id : null };
}

export function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Patterns of leaked internals: stack frames, host paths, module names. */
const LEAKS: [string, RegExp][] = [
  ['stack frame', /\n\s*at |\bat [^\s()]+ \(|\bat (?:file|node):|:\d+:\d+\)/],
  ['host path', /\/work\//],
  ['module path', /node_modules/],
  ['source file', /\.ts:\d|\.ts\b.*line/],
];

/** True when the message was a well-formed 2026-07-28 request (so its result must carry resultType). */
function isModern(message: unknown): boolean {
  if (!isObject(message) || !isObject(message.params)) return false;
  const meta = message.params._meta;
  return isObject(meta) && meta[PV] === '2026-07-28' && isObject(meta[CC]);
}

export interface Verdict {
  problems: string[];
  /** The id of a known bug this case reproduces (its problems are then not fatal). */
  knownBug?: string;
}

/**
 * Checks one reply against the contract. `requestText` is what was sent (echoed input is not a leak);
 * `message` is its parsed value, if it parsed.
 */
export function checkReply(
  reply: unknown,
  expected: Expectation,
  requestText: string,
  message: unknown,
  options: { allowInternal?: boolean } = {},
): string[] {
  const problems: string[] = [];
  if (expected.replies === 0) {
    if (reply !== undefined) problems.push(`a notification was answered: ${short(reply)}`);
    return problems;
  }
  if (reply === undefined) return ['a request got no reply'];
  if (!isObject(reply)) return [`reply is not an object: ${short(reply)}`];
  const keys = Object.keys(reply).sort().join(',');
  if (keys !== 'error,id,jsonrpc' && keys !== 'id,jsonrpc,result') problems.push(`reply keys are ${keys}`);
  if (reply.jsonrpc !== '2.0') problems.push(`jsonrpc is ${short(reply.jsonrpc)}`);
  if (reply.id !== expected.id) problems.push(`id is ${short(reply.id)}, expected ${short(expected.id)}`);
  if ('result' in reply) {
    if (!isObject(reply.result)) problems.push(`result is not an object: ${short(reply.result)}`);
    else if (isModern(message) && reply.result.resultType !== 'complete' && reply.result.resultType !== 'input_required') {
      problems.push(`2026 result without resultType: ${short(reply.result)}`);
    }
  }
  if ('error' in reply) {
    const error = reply.error;
    if (!isObject(error)) problems.push(`error is not an object: ${short(error)}`);
    else {
      const extra = Object.keys(error).filter((k) => k !== 'code' && k !== 'message' && k !== 'data');
      if (extra.length) problems.push(`error has extra keys ${extra.join(',')}`);
      if (typeof error.code !== 'number' || !Number.isInteger(error.code)) problems.push(`error code ${short(error.code)} is not an integer`);
      else if (!ALLOWED_CODES.has(error.code)) problems.push(`error code ${error.code} is outside the contract`);
      if (typeof error.message !== 'string' || error.message === '') problems.push(`error message ${short(error.message)} is not a non-empty string`);
      else if (error.code === -32603 && !options.allowInternal && !EXPECTED_INTERNAL.some((re) => re.test(error.message as string))) {
        problems.push(`unexpected internal error (-32603 "${error.message}")`);
      }
    }
  }
  problems.push(...leaks(JSON.stringify(reply) ?? '', requestText));
  return problems;
}

export function leaks(replyText: string, requestText: string): string[] {
  return LEAKS.filter(([, re]) => re.test(replyText) && !re.test(requestText)).map(([what]) => `reply leaks a ${what}: ${short(replyText, 300)}`);
}

export function short(value: unknown, max = 160): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

// ---- known bugs -------------------------------------------------------------------------------

/**
 * Bugs found by this suite and not fixed yet (see docs/reliability.md, "Open bugs"). Each returns true
 * when `message` reproduces it; the fuzz tests count such cases instead of failing on them.
 */
export const KNOWN_BUGS: Record<string, (message: unknown) => boolean> = {
  // Empty: every bug the fuzzers found (BUG-1..10) is fixed, and its adversarial test guards it.
};

export function knownBugOf(message: unknown): string | undefined {
  for (const [name, test] of Object.entries(KNOWN_BUGS)) {
    try {
      if (test(message)) return name;
    } catch {
      // a predicate must never break the oracle
    }
  }
  return undefined;
}

// ---- process-level checks ---------------------------------------------------------------------

export interface CrashTrap {
  readonly errors: unknown[];
  dispose(): void;
}

/** Collects unhandled rejections and uncaught exceptions while installed. */
export function installCrashTrap(): CrashTrap {
  const errors: unknown[] = [];
  const onRejection = (reason: unknown) => errors.push(reason);
  const onException = (error: unknown) => errors.push(error);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    dispose() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

const PROTOTYPES: [string, object][] = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
];
const snapshot = () =>
  PROTOTYPES.map(([name, proto]) => [name, new Map(Reflect.ownKeys(proto).map((k) => [k, Object.getOwnPropertyDescriptor(proto, k)?.value]))] as const);
const BASELINE = snapshot();

/** Any own property added, removed or replaced on the built-in prototypes since this module loaded. */
export function pollution(): string[] {
  const problems: string[] = [];
  const probe = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin']) if (probe[key] !== undefined) problems.push(`({}).${key} is ${String(probe[key])}`);
  if (Object.getPrototypeOf(probe) !== Object.prototype) problems.push('the prototype of {} changed');
  const now = snapshot();
  for (let i = 0; i < BASELINE.length; i++) {
    const [name, before] = BASELINE[i]!;
    const after = now[i]![1];
    for (const [key, value] of after) {
      if (!before.has(key)) problems.push(`${name}.${String(key)} was added`);
      else if (before.get(key) !== value) problems.push(`${name}.${String(key)} was replaced`);
    }
    for (const key of before.keys()) if (!after.has(key)) problems.push(`${name}.${String(key)} was removed`);
  }
  return problems;
}

/** Fuzz runs: FUZZ_RUNS (from `node scripts/fuzz.mjs --runs N`) or the CI default, scaled per property. */
export function runs(ciDefault: number, share = 1): number {
  const env = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(env) && env > 0 ? Math.max(1, Math.round(env * share)) : ciDefault;
}

/** A fixed seed in CI (reproducible), a random one for long runs unless FUZZ_SEED is set. */
export function seed(): number | undefined {
  const env = Number(process.env.FUZZ_SEED);
  if (Number.isInteger(env)) return env;
  return process.env.FUZZ_RUNS ? undefined : 20260728;
}

/** Counters every fuzz test reports (printed with `[fuzz]` so long runs can be summarised). */
export class Tally {
  cases = 0;
  replies = 0;
  silent = 0;
  errors = new Map<number, number>();
  known = new Map<string, number>();
  hangs = 0;
  constructor(readonly name: string) {}
  code(code: unknown): void {
    if (typeof code === 'number') this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }
  bug(name: string): void {
    this.known.set(name, (this.known.get(name) ?? 0) + 1);
  }
  print(ms: number): void {
    const codes = [...this.errors].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}:${n}`).join(' ');
    const known = [...this.known].map(([b, n]) => `${b}=${n}`).join(' ') || 'none';
    console.info(`[fuzz] ${this.name}: ${this.cases} inputs in ${(ms / 1000).toFixed(1)} s, ${this.replies} replies, ${this.silent} silent, ` +
      `hangs ${this.hangs}, error codes {${codes}}, known-bug hits {${known}}`);
  }
}
