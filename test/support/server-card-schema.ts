/**
 * The published Server Card schema (test/fixtures/server-card, vendored with its commit), compiled
 * with @cfworker/json-schema (2020-12): what every card MiniMCP serves is checked against.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator, type Schema } from '@cfworker/json-schema';

const HERE = fileURLToPath(new URL('../fixtures/server-card/', import.meta.url));
const schema = JSON.parse(readFileSync(join(HERE, 'schema.json'), 'utf8')) as Schema;
// The file has only $defs; a card is `#/$defs/ServerCard`, as the extension's own validate script reads it.
const validator = new Validator({ ...schema, $ref: '#/$defs/ServerCard' } as Schema, '2020-12', false);

/** The schema's errors for a card ([] when it is valid). */
export function schemaErrors(card: unknown): string[] {
  const result = validator.validate(card);
  return result.valid ? [] : result.errors.map((e) => `${e.instanceLocation} ${e.keyword}: ${e.error}`);
}

/** The extension's example cards: `valid/*.json` and `invalid/*.json`, by file name. */
export function exampleCards(kind: 'valid' | 'invalid'): [string, unknown][] {
  const dir = join(HERE, 'examples', kind);
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8'))]);
}
