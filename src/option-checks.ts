/** The one check every numeric option goes through (server, HTTP handler and serve() options alike). */

/** Timers and node's limits take 32-bit signed integers: a larger value would silently become 1 ms. */
const MAX_INT32 = 2_147_483_647;

/** Whose option it is, for the error message, and the largest value allowed. */
export interface IntLimits {
  owner?: 'MiniMCP option' | 'HTTP option' | 'serve() option';
  max?: number;
}

/** `options[name]`, or `fallback` when unset: an integer from 1 to `max`, else a TypeError naming the option. */
export function positiveInt(options: object, name: string, fallback: number, { owner = 'MiniMCP option', max = MAX_INT32 }: IntLimits = {}): number {
  const value = (options as Record<string, unknown>)[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new TypeError(`${owner} ${name} must be a positive integer (at most ${max}), got ${String(value)}`);
  }
  return value;
}
