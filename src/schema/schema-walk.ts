/** Visits every subschema of a JSON Schema (the schema itself included), never the data inside it. */
import type { JsonObject } from '../protocol/jsonrpc.js';

/** Keywords whose values are data, never subschemas: nothing inside them is a keyword. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose values map names (not keywords) to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

export function visitSchemas(schema: unknown, visit: (node: JsonObject) => void): void {
  if (Array.isArray(schema)) {
    for (const item of schema) visitSchemas(item, visit);
    return;
  }
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as JsonObject;
  visit(node);
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const sub of Object.values(value)) visitSchemas(sub, visit);
    } else if (!DATA_KEYWORDS.has(key)) {
      visitSchemas(value, visit);
    }
  }
}
