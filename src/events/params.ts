/**
 * The params of the `events/*` methods, checked by a Standard Schema written here (as the skills
 * extension does): synchronous, and each message names the field. The subscription arguments are the
 * event type's own schema's business, checked after the type is known.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { StandardSchemaV1 } from '../schema/standard-schema.js';

type Issue = { message: string; path: string[] };
type Field = 'name' | 'arguments' | 'cursor' | 'maxAgeMs' | 'maxEvents' | 'delivery' | 'ttlMs';

const MAX_INT = 2 ** 53 - 1;

function issueOf(field: Field, value: unknown): string | undefined {
  switch (field) {
    case 'name': return typeof value === 'string' ? undefined : 'must be a string';
    case 'arguments': return value === undefined || isObject(value) ? undefined : 'must be an object';
    case 'cursor': return value === undefined || value === null || typeof value === 'string' ? undefined : 'must be a string or null';
    case 'maxAgeMs': return value === undefined || value === null || (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_INT) ? undefined : 'must be a non-negative integer';
    case 'maxEvents': return value === undefined || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_INT) ? undefined : 'must be a positive integer';
    case 'ttlMs': return value === undefined || value === null || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_INT) ? undefined : 'must be a positive integer or null';
    case 'delivery': return isObject(value) ? undefined : 'must be an object';
  }
}

function schemaOf(fields: readonly Field[], listCursor = false): StandardSchemaV1<JsonObject> {
  const validate = (value: unknown) => {
    const given = (isObject(value) ? value : {}) as JsonObject;
    const issues: Issue[] = [];
    if (listCursor) {
      if (given.cursor !== undefined && typeof given.cursor !== 'string') issues.push({ message: 'must be a string', path: ['cursor'] });
    } else {
      for (const field of fields) {
        const message = issueOf(field, given[field]);
        if (message !== undefined) issues.push({ message, path: [field] });
      }
    }
    return issues.length > 0 ? { issues } : { value: given };
  };
  return { '~standard': { version: 1, vendor: 'minimcp', validate } };
}

export const LIST_PARAMS = schemaOf([], true);
export const POLL_PARAMS = schemaOf(['name', 'arguments', 'cursor', 'maxAgeMs', 'maxEvents']);
export const STREAM_PARAMS = schemaOf(['name', 'arguments', 'cursor', 'maxAgeMs']);
export const SUBSCRIBE_PARAMS = schemaOf(['name', 'arguments', 'cursor', 'maxAgeMs', 'ttlMs', 'delivery']);
export const UNSUBSCRIBE_PARAMS = schemaOf(['name', 'arguments', 'delivery']);

/** `maxAgeMs` as a number, or undefined when absent or null. */
export const maxAgeOf = (params: JsonObject): number | undefined => (typeof params.maxAgeMs === 'number' ? params.maxAgeMs : undefined);
