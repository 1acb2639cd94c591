/** The one check every numeric option goes through (server, HTTP handler and serve() options alike). */

/** Timers and node's limits take 32-bit signed integers: a larger value would silently become 1 ms. */
const MAX_INT32 = 2_147_483_647;

/** Whose option it is, for the error message, and the range allowed (1 to 2^31 - 1 by default). */
export interface IntLimits {
  owner?: 'MiniMCP option' | 'HTTP option' | 'HTTP option card' | 'serve() option' | 'oauthResourceServer option' | 'Session limit' | 'Proof limit' | 'WorkerPool option' | 'Events option';
  min?: 0 | 1;
  max?: number;
}

/** `options[name]`, or `fallback` when unset: an integer from `min` to `max`, else a TypeError naming the option. */
export function intOption(options: object, name: string, fallback: number, { owner = 'MiniMCP option', min = 1, max = MAX_INT32 }: IntLimits = {}): number {
  const value = (options as Record<string, unknown>)[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = min === 1 ? `a positive integer (at most ${max})` : `an integer from ${min} to ${max}`;
    throw new TypeError(`${owner} ${name} must be ${range}, got ${String(value)}`);
  }
  return value;
}

/** A set of count limits: each from `given`, else its default, checked by intOption (a TypeError names a bad one). */
export function limitsOver<T extends object>(defaults: Readonly<T>, given: Partial<T>, owner: IntLimits['owner']): T {
  const limits: Record<string, number> = {};
  for (const [name, fallback] of Object.entries(defaults)) limits[name] = intOption(given, name, fallback as number, { owner });
  return limits as T;
}
