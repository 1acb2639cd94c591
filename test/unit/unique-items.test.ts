/** `uniqueItems` keeps its meaning with the linear check (src/schema/unique-items.ts); speed is in test/security/validation.test.ts. */
import { describe, expect, it } from 'vitest';
import { compileJsonSchema } from '../../src/schema/json-schema.js';
import { scanUniqueItems } from '../../src/schema/unique-items.js';

const validate = async (schema: Record<string, unknown>, value: unknown) => compileJsonSchema(schema as never).validate(value);

describe('scanUniqueItems', () => {
  it('finds deep-equal items, whatever the key order, and nothing else', () => {
    expect(scanUniqueItems([1, 2, 3])).toBe('unique');
    expect(scanUniqueItems([1, '1', true, 'true', null, 'null'])).toBe('unique');
    expect(scanUniqueItems([1, 2, 1])).toBe('duplicates');
    expect(scanUniqueItems([{ a: 1, b: [2] }, { b: [2], a: 1 }])).toBe('duplicates');
    expect(scanUniqueItems([{ a: 1 }, { a: 1, b: undefined }, [{ a: 1 }]])).toBe('unique');
    expect(scanUniqueItems({ deep: { list: [[1, 2], [1, 2]] } })).toBe('duplicates');
    expect(scanUniqueItems([{ 'a,b': 1 }, { a: 1, b: 1 }])).toBe('unique');
    expect(scanUniqueItems([...Array(5_000).keys(), 0])).toBe('too-costly');
  });
});

describe('uniqueItems through the validator', () => {
  const list = { type: 'array', uniqueItems: true };

  it('a unique array passes, a duplicate is named', async () => {
    expect(await validate(list, [1, 2, 3])).toEqual({ ok: true, value: [1, 2, 3] });
    expect(await validate(list, [{ a: 1 }, { a: 1 }])).toEqual({ ok: false, message: 'Duplicate items at indexes 0 and 1.' });
  });

  it('applies only where the schema says: a duplicate elsewhere in the value is fine', async () => {
    const schema = { type: 'object', properties: { tags: list, log: { type: 'array' } } };
    expect((await validate(schema, { tags: ['a', 'b'], log: ['x', 'x'] })).ok).toBe(true);
    expect((await validate(schema, { tags: ['a', 'a'], log: [] })).ok).toBe(false);
  });

  it('keeps its meaning under not, and a uniqueItems inside const data is data', async () => {
    const needsDuplicates = { not: list };
    expect((await validate(needsDuplicates, [1, 2])).ok).toBe(false);
    expect((await validate(needsDuplicates, [1, 1])).ok).toBe(true);
    const constant = { const: { uniqueItems: true } };
    expect((await validate(constant, { uniqueItems: true })).ok).toBe(true);
  });
});
