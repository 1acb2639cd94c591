/**
 * Whether a value survives a trip through JSON unchanged. A `ctx.once()` result is sealed as JSON and
 * read back in later rounds: a Date would come back a string, a Map an empty object, a BigInt not at
 * all. Refusing those up front means the handler sees the same value in every round.
 */

/** Deeper than this is not a step result anyone means (and a cycle is caught here too). */
const MAX_JSON_DEPTH = 64;

/** What a non-plain object is, for the message: "a Date", "a Map", "an Order" (its constructor's name). */
function kindOf(value: object): string {
  try {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '') return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
  } catch {
    // a hostile getter: the generic words below
  }
  return 'an object that is not a plain object';
}

const at = (path: string): string => (path === '' ? 'the result' : `the result's ${path}`);

/**
 * Where `value` stops being JSON ("the result's .when is a Date"), or undefined when it is a JSON
 * value: null, a boolean, a finite number, a string, an array of JSON values or a plain object of
 * them. An object property that is `undefined` is allowed (JSON drops it, and it reads the same).
 */
export function notJson(value: unknown, path = '', depth = 0): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at(path)} is ${value}, not a finite number`;
  if (typeof value !== 'object') return `${at(path)} is ${value === undefined ? 'undefined' : `a ${typeof value}`}`;
  if (depth >= MAX_JSON_DEPTH) return `${at(path)} is nested deeper than ${MAX_JSON_DEPTH} levels (or is circular)`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const issue = notJson(value[i], `${path}[${i}]`, depth + 1); // a hole or undefined would come back null
      if (issue !== undefined) return issue;
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `${at(path)} is ${kindOf(value)}`;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const issue = notJson(item, `${path}.${key}`, depth + 1);
    if (issue !== undefined) return issue;
  }
  return undefined;
}
