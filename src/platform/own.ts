/**
 * Lookups by a name a client chose. `record[name]` would find Object.prototype members (`constructor`,
 * `toString`, `__proto__`) on every plain object, so a client could make the server call them.
 */

/** The record's own value for `key`; never an inherited member. */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
