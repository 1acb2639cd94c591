/**
 * Issue 26 item 1: Zod 4, Valibot and ArkType schemas are accepted and typed under every configuration of
 * the type-test matrix (scripts/type-matrix.mjs: `tsc --init` of TypeScript 5.9 and 7, the strictest
 * flags, TypeScript 5.4), exactOptionalPropertyTypes included; a bare shape and a schema that is not a
 * Standard Schema v1 are compile errors. Checked by `npm run typecheck` and by the matrix; never runs.
 */
import { type } from 'arktype';
import { MiniMCP } from 'minimcp';
import * as v from 'valibot';
import { expectTypeOf } from 'vitest';
import * as z from 'zod';

const mcp = new MiniMCP({ name: 'schemas', version: '1' });

// ---- each library, as tool input, tool output and prompt arguments ----------------------------------

mcp.tool('zod', { input: z.object({ a: z.number(), note: z.string().optional() }), output: z.object({ sum: z.number() }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ a: number; note?: string | undefined }>();
  return { sum: args.a };
});
mcp.prompt('zod', { arguments: z.object({ topic: z.string() }) }, ({ topic }) => {
  expectTypeOf(topic).toEqualTypeOf<string>();
  return topic;
});

mcp.tool('valibot', { input: v.object({ a: v.number(), note: v.optional(v.string()) }), output: v.object({ sum: v.number() }) }, (args) => {
  expectTypeOf(args.a).toEqualTypeOf<number>();
  expectTypeOf(args.note).toEqualTypeOf<string | undefined>();
  return { sum: args.a };
});
mcp.prompt('valibot', { arguments: v.object({ topic: v.string() }) }, ({ topic }) => {
  expectTypeOf(topic).toEqualTypeOf<string>();
  return topic;
});

mcp.tool('arktype', { input: type({ a: 'number', 'note?': 'string' }), output: type({ sum: 'number' }) }, (args) => {
  expectTypeOf(args).toEqualTypeOf<{ a: number; note?: string }>();
  return { sum: args.a };
});
mcp.prompt('arktype', { arguments: type({ topic: 'string' }) }, ({ topic }) => {
  expectTypeOf(topic).toEqualTypeOf<string>();
  return topic;
});

// @ts-expect-error the result does not fit the ArkType output schema
mcp.tool('arktype-wrong', { output: type({ sum: 'number' }) }, () => ({ sum: 'one' }));

// ---- mistakes the compiler catches --------------------------------------------------------------------

// @ts-expect-error a bare shape (the official SDK's form) is not a schema: wrap it in z.object
mcp.tool('bare-shape', { input: { n: z.number() } }, () => '');
// @ts-expect-error the same for prompt arguments
mcp.prompt('bare-shape', { arguments: { topic: z.string() } }, () => '');
// @ts-expect-error and for an output schema
mcp.tool('bare-output', { output: { n: z.number() } }, () => ({ n: 1 }));

const otherVersion = { '~standard': { version: 2 as const, vendor: 'x', validate: (value: unknown) => ({ value }) } };
// @ts-expect-error a `~standard` object of another version is neither a Standard Schema v1 nor a JSON Schema
mcp.tool('other-version', { input: otherVersion }, () => '');
