/**
 * `uniqueItems` without the validator's quadratic loop. The validator compares every pair of items
 * (n² deep comparisons, and no early exit for an array that is unique), so one array of 500,000 numbers
 * with `uniqueItems` kept a core busy for minutes, synchronously.
 *
 * Here one linear pass gives every value in the instance a number that is equal exactly when two
 * values are deep-equal (hash-consing: a container's key is built from its children's numbers), and an
 * array has duplicates when two items share a number. When no array in the instance has duplicates,
 * `uniqueItems` holds wherever it applies, so the instance is validated against a copy of the schema
 * without it: the same answer, in linear time. When some array has duplicates, the validator's own
 * check runs (it stops at the first duplicate pair), but only if its pairwise work stays bounded.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { visitSchemas } from './schema-walk.js';

/** Item comparisons (weighted by the items' size) the validator may spend on an instance with duplicates. */
export const UNIQUE_ITEMS_BUDGET = 4_000_000;

/** Whether any subschema asks for `uniqueItems: true`. */
export function usesUniqueItems(schema: unknown): boolean {
  let found = false;
  visitSchemas(schema, (node) => {
    if (node.uniqueItems === true) found = true;
  });
  return found;
}

/** Deletes every `uniqueItems` keyword from a schema (the validator's private copy). */
export function withoutUniqueItems<T>(schema: T): T {
  visitSchemas(schema, (node) => {
    delete node.uniqueItems;
  });
  return schema;
}

export type UniqueScan = 'unique' | 'duplicates' | 'too-costly';

/** Whether every array in a JSON value has distinct items (deep equality, key order ignored). */
export function scanUniqueItems(value: unknown): UniqueScan {
  // One number per distinct value: primitives keyed by themselves (a Map tells 1 from '1'), containers
  // by their children's numbers.
  const primitives = new Map<unknown, number>();
  const containers = new Map<string, number>();
  let next = 0;
  let nodes = 0;
  let duplicates = false;
  let pairwiseCost = 0;
  const walk = (v: unknown): number => {
    nodes++;
    if (typeof v !== 'object' || v === null) {
      let id = primitives.get(v);
      if (id === undefined) primitives.set(v, (id = next++));
      return id;
    }
    const before = nodes;
    let key: string;
    if (Array.isArray(v)) {
      const items = v.map(walk);
      if (!duplicates && new Set(items).size !== items.length) duplicates = true;
      pairwiseCost += items.length * (nodes - before);
      key = `a${items.join(',')}`;
    } else {
      key = 'o';
      for (const k of Object.keys(v).sort()) key += `${JSON.stringify(k)}:${walk((v as JsonObject)[k])},`;
    }
    let id = containers.get(key);
    if (id === undefined) containers.set(key, (id = next++));
    return id;
  };
  walk(value);
  if (!duplicates) return 'unique';
  return pairwiseCost > UNIQUE_ITEMS_BUDGET ? 'too-costly' : 'duplicates';
}
