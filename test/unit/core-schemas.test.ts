/** Schemas: Zod 4, Valibot (with and without a converter), raw JSON Schema dialects, published unchanged. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { MiniMCP, type JsonSchemaConverter } from '../../src/index.js';

const base = { name: 'schemas', version: '1.0.0', onError: () => {} };
const req = (method: string, params?: Record<string, unknown>, id: string | number = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
const listed = async (mcp: MiniMCP, name: string) =>
  (((await mcp.handle(req('tools/list'))) as any).result.tools as any[]).find((t) => t.name === name);
const call = async (mcp: MiniMCP, name: string, args: unknown) =>
  ((await mcp.handle(req('tools/call', { name, arguments: args }))) as any).result;

describe('Zod 4', () => {
  const mcp = new MiniMCP(base);
  mcp.tool('zod', {
    input: z.object({
      city: z.string().describe('The city name'),
      days: z.number().int().min(1).max(7).optional().describe('How many days'),
      units: z.enum(['c', 'f']).default('c'),
    }),
  }, (args) => JSON.stringify(args));

  it('publishes a 2020-12 object schema with descriptions, optional fields not required', async () => {
    const schema = (await listed(mcp, 'zod')).inputSchema;
    expect(schema.type).toBe('object');
    expect(schema.properties.city).toEqual({ type: 'string', description: 'The city name' });
    expect(schema.properties.days).toMatchObject({ type: 'integer', minimum: 1, maximum: 7, description: 'How many days' });
    expect(schema.properties.units).toMatchObject({ enum: ['c', 'f'] });
    expect(schema.required).toEqual(['city']);
    if (schema.$schema !== undefined) expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('validates and passes the parsed output (defaults applied) to the handler', async () => {
    expect(await call(mcp, 'zod', { city: 'Oslo' })).toEqual({ content: [{ type: 'text', text: '{"city":"Oslo","units":"c"}' }] });
    const bad = await call(mcp, 'zod', { city: 'Oslo', days: 9 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/^Invalid arguments for tool 'zod': days: /);
  });

  it('async refinements are awaited', async () => {
    const m = new MiniMCP(base);
    m.tool('async', { input: z.object({ n: z.number() }).refine(async (o) => o.n > 0, 'n must be positive') }, ({ n }) => `n=${n}`);
    expect(await call(m, 'async', { n: 1 })).toEqual({ content: [{ type: 'text', text: 'n=1' }] });
    const bad = await call(m, 'async', { n: -1 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain('n must be positive');
  });
});

describe('Valibot', () => {
  const schema = v.object({ name: v.pipe(v.string(), v.minLength(2)), age: v.optional(v.number()) });

  it('without a converter, registration throws a clear error', () => {
    const mcp = new MiniMCP(base);
    expect(() => mcp.tool('vb', { input: schema }, () => 'x')).toThrow(
      /^Cannot convert the valibot schema to JSON Schema: pass a converter \(MiniMCP option "toJsonSchema"\) or a raw JSON Schema/,
    );
    expect(mcp.tools.list()).toEqual([]);
    expect(() => mcp.prompt('vp', { arguments: v.object({ a: v.string() }) }, () => 'x')).toThrow(/toJsonSchema/);
  });

  it('with the toJsonSchema option, publishes the converted schema and validates with Valibot', async () => {
    const converter: JsonSchemaConverter = (s) => toJsonSchema(s as any) as Record<string, unknown>;
    const mcp = new MiniMCP({ ...base, toJsonSchema: converter });
    mcp.tool('vb', { input: schema }, (args) => `hi ${args.name}`);
    const published = (await listed(mcp, 'vb')).inputSchema;
    expect(published).toEqual(toJsonSchema(schema));
    expect(published).toMatchObject({ type: 'object', properties: { name: { type: 'string', minLength: 2 }, age: { type: 'number' } }, required: ['name'] });
    expect(await call(mcp, 'vb', { name: 'Al' })).toEqual({ content: [{ type: 'text', text: 'hi Al' }] });
    const bad = await call(mcp, 'vb', { name: 'A' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/^Invalid arguments for tool 'vb': name: /);
  });

  it('a converter that throws is reported at registration', () => {
    const mcp = new MiniMCP({ ...base, toJsonSchema: () => { throw new Error('nope'); } });
    expect(() => mcp.tool('vb', { input: schema }, () => 'x')).toThrow('Cannot convert the valibot schema to JSON Schema: nope');
  });

  it('the converter feeds prompt arguments too', async () => {
    const mcp = new MiniMCP({ ...base, toJsonSchema: (s) => toJsonSchema(s as any) as Record<string, unknown> });
    mcp.prompt('vp', { arguments: v.object({ topic: v.string(), tone: v.optional(v.string()) }) }, (a) => `about ${a.topic}`);
    const prompts = ((await mcp.handle(req('prompts/list'))) as any).result.prompts;
    expect(prompts).toEqual([{ name: 'vp', arguments: [{ name: 'topic', required: true }, { name: 'tone' }] }]);
  });
});

describe('raw JSON Schema', () => {
  const complex = {
    type: 'object',
    $defs: {
      pos: { $anchor: 'positive', type: 'integer', minimum: 1 },
      kind: { enum: ['a', 'b'] },
    },
    properties: {
      count: { $ref: '#positive' },
      kind: { $ref: '#/$defs/kind' },
      extra: { type: 'string' },
    },
    required: ['count', 'kind'],
    if: { properties: { kind: { const: 'b' } } },
    then: { required: ['extra'] },
    else: { not: { required: ['extra'] } },
    additionalProperties: false,
  };
  const snapshot = structuredClone(complex);
  const mcp = new MiniMCP(base);
  mcp.tool('raw', { input: complex }, (args) => JSON.stringify(args));

  it('is published unchanged (deep-equal, $defs, $anchor and if/then/else included)', async () => {
    expect((await listed(mcp, 'raw')).inputSchema).toEqual(snapshot);
    // Compiling did not annotate or alter the caller's object either.
    expect(complex).toEqual(snapshot);
  });

  it('is validated as 2020-12 by default ($ref, $anchor, if/then/else, additionalProperties)', async () => {
    expect(await call(mcp, 'raw', { count: 2, kind: 'a' })).toEqual({ content: [{ type: 'text', text: '{"count":2,"kind":"a"}' }] });
    expect(await call(mcp, 'raw', { count: 2, kind: 'b', extra: 'x' })).toEqual({
      content: [{ type: 'text', text: '{"count":2,"kind":"b","extra":"x"}' }],
    });
    for (const bad of [{ count: 0, kind: 'a' }, { count: 1, kind: 'c' }, { count: 1, kind: 'b' }, { count: 1, kind: 'a', extra: 'x' }, { count: 1, kind: 'a', zzz: 1 }]) {
      const r = await call(mcp, 'raw', bad);
      expect(r.isError, JSON.stringify(bad)).toBe(true);
      expect(r.content[0].text).toMatch(/^Invalid arguments for tool 'raw': /);
    }
  });

  it('uses 2020-12 semantics without $schema (prefixItems)', async () => {
    const m = new MiniMCP(base);
    m.tool('tuple', { input: { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } } } }, () => 'ok');
    expect(await call(m, 'tuple', { pair: ['a', 1] })).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect((await call(m, 'tuple', { pair: [1, 'a'] })).isError).toBe(true);
    expect((await call(m, 'tuple', { pair: ['a', 1, 2] })).isError).toBe(true);
  });

  it('a $schema of draft-07 works and is validated as draft-07', async () => {
    const m = new MiniMCP(base);
    const d7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { name: { type: 'string', minLength: 3 } },
      properties: { name: { $ref: '#/definitions/name' }, list: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
      required: ['name'],
    };
    m.tool('d7', { input: d7 }, () => 'ok');
    expect((await listed(m, 'd7')).inputSchema).toEqual(structuredClone(d7));
    expect(await call(m, 'd7', { name: 'abc', list: ['x'] })).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect((await call(m, 'd7', { name: 'ab' })).isError).toBe(true);
    expect((await call(m, 'd7', { name: 'abc', list: ['x', 'y'] })).isError).toBe(true);
  });

  it('an explicit 2020-12 $schema is accepted', () => {
    const m = new MiniMCP(base);
    expect(() => m.tool('e', { input: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } }, () => 1)).not.toThrow();
  });

  it('an unknown dialect throws at registration', () => {
    const m = new MiniMCP(base);
    expect(() => m.tool('u', { input: { $schema: 'https://example.com/my-dialect', type: 'object' } }, () => 1))
      .toThrow('Unsupported JSON Schema dialect: https://example.com/my-dialect');
    expect(() => m.tool('u2', { input: { $schema: 42, type: 'object' } as any }, () => 1)).toThrow(/Unsupported JSON Schema dialect/);
    expect(m.tools.list()).toEqual([]);
  });

  it('an output JSON Schema with an array root is allowed and validated', async () => {
    const m = new MiniMCP(base);
    m.tool('arr', { output: { type: 'array', items: { type: 'number' } } }, () => [1, 2]);
    // @ts-expect-error deliberately breaks the output schema: the run-time check is under test
    m.tool('arrBad', { output: { type: 'array', items: { type: 'number' } } }, () => ['x']);
    expect(await call(m, 'arr', {})).toEqual({ content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] });
    expect((await call(m, 'arrBad', {})).isError).toBe(true);
  });

  it('a schema that is not an object is refused', () => {
    const m = new MiniMCP(base);
    expect(() => m.tool('n', { input: [] as any }, () => 1)).toThrow(/Standard Schema .* or a JSON Schema object/);
    expect(() => m.tool('n2', { input: 'object' as any }, () => 1)).toThrow(/Standard Schema .* or a JSON Schema object/);
  });
});
