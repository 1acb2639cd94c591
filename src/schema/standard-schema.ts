/**
 * Schemas for tool input/output and prompt arguments. A Standard Schema v1 (Zod 4, Valibot, ArkType)
 * or a raw JSON Schema object is compiled once, at registration, into a JSON Schema 2020-12 document
 * for the wire plus a validator for the hot path.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { CompiledSchema, Validation } from './compiled.js';
import { compileJsonSchema } from './json-schema.js';

/**
 * The Standard Schema v1 interface (https://standardschema.dev), written out so no package is needed.
 * Every optional field also admits `undefined`, as the spec writes it: a library's types are checked
 * against this copy in the user's tsconfig, and under `exactOptionalPropertyTypes` (on in `tsc --init`)
 * a field declared `path?: T` rejects the spec's `path?: T | undefined`, and with it every schema.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaProps<Input, Output>;
}
interface StandardSchemaProps<Input, Output> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  /** Standard JSON Schema: present on Zod >= 4.2 and others. */
  readonly jsonSchema?:
    | {
        readonly input: (options: { readonly target: string }) => Record<string, unknown>;
        readonly output: (options: { readonly target: string }) => Record<string, unknown>;
      }
    | undefined;
}
interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}
type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

export type InferOutput<S> = S extends StandardSchemaV1<unknown, infer O> ? O : Record<string, unknown>;

/**
 * A raw JSON Schema object (validated with a compiled 2020-12 validator). Its `~standard` is typed (a
 * JSON Schema has none) so that a schema library's object that does not fit StandardSchemaV1 gets a
 * compiler message naming what does not fit (its version, its issues' path...), not one about JSON Schema.
 */
export type JsonSchema = { readonly '~standard'?: StandardSchemaProps<unknown, unknown>; readonly [keyword: string]: unknown };
export type SchemaLike = StandardSchemaV1 | JsonSchema;

/**
 * Intersected with a schema option's type parameter: a bare shape of schemas (`{ n: z.number() }`, the
 * official SDK's form) is refused at compile time by a required property that names the fix.
 */
export type SchemaCheck<S> = S extends StandardSchemaV1
  ? unknown
  : S extends object
    ? true extends { [K in keyof S]: S[K] extends StandardSchemaV1 ? true : false }[keyof S]
      ? { readonly 'a bare shape of schemas is not a schema: wrap it, e.g. z.object({ ... })': never }
      : unknown
    : unknown;

/** Converts a Standard Schema the library cannot describe itself (e.g. Valibot's toJsonSchema). */
export type JsonSchemaConverter = (schema: StandardSchemaV1, io: 'input' | 'output') => Record<string, unknown> | undefined;

export type { CompiledSchema, Validation } from './compiled.js';

export const isStandardSchema = (s: unknown): s is StandardSchemaV1 =>
  (typeof s === 'object' || typeof s === 'function') && s !== null && '~standard' in s;

function toJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output', converter?: JsonSchemaConverter): JsonObject {
  const std = schema['~standard'];
  let out: Record<string, unknown> | undefined;
  try {
    out = std.jsonSchema?.[io]({ target: 'draft-2020-12' });
    // Zod 4 before 4.2 has no Standard JSON Schema but converts itself.
    const self = schema as unknown as { toJSONSchema?: (o: object) => Record<string, unknown> };
    if (!out && std.vendor === 'zod' && typeof self.toJSONSchema === 'function') {
      out = self.toJSONSchema({ target: 'draft-2020-12', io });
    }
    out ??= converter?.(schema, io);
  } catch (error) {
    throw new Error(`Cannot convert the ${std.vendor} schema to JSON Schema: ${(error as Error).message}`);
  }
  if (!out || typeof out !== 'object') {
    throw new Error(
      `Cannot convert the ${std.vendor} schema to JSON Schema: pass a converter (MiniMCP option "toJsonSchema") ` +
        'or a raw JSON Schema; MiniMCP will not publish an empty schema',
    );
  }
  return out as JsonObject;
}

function formatIssues(issues: StandardResult<unknown>['issues']): string {
  return (issues ?? [])
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** A Standard Schema's own validation, its issues as one message. */
function standardValidator(schema: StandardSchemaV1): CompiledSchema['validate'] {
  const check = (r: StandardResult<unknown>): Validation =>
    r.issues ? { ok: false, message: formatIssues(r.issues) } : { ok: true, value: r.value };
  return (value) => {
    const r = schema['~standard'].validate(value);
    return r instanceof Promise ? r.then(check) : check(r);
  };
}

function fromStandard(schema: StandardSchemaV1, io: 'input' | 'output', converter?: JsonSchemaConverter): CompiledSchema {
  return { jsonSchema: toJsonSchema(schema, io, converter), validate: standardValidator(schema) };
}

/** A validator only, for what is never published as a JSON Schema (extension method params): no conversion needed. */
export function validatorOf(schema: SchemaLike): CompiledSchema['validate'] {
  if (isStandardSchema(schema)) return standardValidator(schema);
  const compiled = compileSchema(schema, 'input');
  return (value) => compiled.validate(value);
}

/** Compiles a schema once. Throws a clear error at registration when it cannot be described. */
export function compileSchema(schema: SchemaLike, io: 'input' | 'output', converter?: JsonSchemaConverter): CompiledSchema {
  if (isStandardSchema(schema)) return fromStandard(schema, io, converter);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error('A schema must be a Standard Schema (Zod, Valibot, ArkType...) or a JSON Schema object');
  }
  const shaped = Object.keys(schema).filter((key) => isStandardSchema(schema[key]));
  if (shaped.length > 0) {
    throw new Error(
      `The schema is a bare shape of schemas ({ ${shaped.join(', ')} }), not a schema: wrap it, e.g. z.object({ ... }) or v.object({ ... })`,
    );
  }
  return compileJsonSchema(schema as JsonObject);
}
