/**
 * Raw JSON Schema validation behind one small function. @cfworker/json-schema is used because it
 * validates without code generation (no `eval`/`new Function`), so it runs on Cloudflare Workers too,
 * and supports draft 2020-12 (the MCP default), 2019-09, 7 and 4. It is loaded on first need, in the
 * background: a server whose schemas are all Zod or Valibot never pays for it at start-up.
 */
import type { Schema, SchemaDraft, Validator } from '@cfworker/json-schema';
import { lazyModule } from '../platform/lazy-module.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { CompiledSchema, Validation } from './compiled.js';
import { FORMAT_PREFIX, installLinearFormats, useLinearFormats } from './formats.js';
import { scanUniqueItems, usesUniqueItems, withoutUniqueItems } from './unique-items.js';

const DIALECTS: Record<string, SchemaDraft> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': '7',
  'http://json-schema.org/draft-04/schema': '4',
};

function dialectOf(schema: JsonObject): SchemaDraft {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12'; // MCP: no $schema means 2020-12
  const draft = typeof declared === 'string' ? DIALECTS[declared.replace(/#$/, '')] : undefined;
  if (!draft) throw new Error(`Unsupported JSON Schema dialect: ${String(declared)}`);
  return draft;
}

function describe(errors: { instanceLocation: string; error: string }[]): string {
  // The innermost errors come last and say the most; keep the message short for the model.
  // Wrappers ("Property "x" does not match schema.") only say an inner error exists: drop them.
  const useful = errors.filter((e) => !/^(?:Property "[^"]*"|Items|Instance) (?:does|did) not match .*schema\.$/.test(e.error));
  return (useful.length ? useful : errors)
    .slice(0, 5)
    .map((e) => (e.instanceLocation === '#' ? e.error : `${e.instanceLocation.slice(2).replaceAll('/', '.')}: ${e.error}`))
    .join('; ')
    .replaceAll(FORMAT_PREFIX, '');
}

type ValidatorModule = typeof import('@cfworker/json-schema');
const validatorModule = lazyModule(() =>
  import('@cfworker/json-schema').then((module) => {
    installLinearFormats(module.format);
    return module;
  }),
);

/**
 * Compiles a raw JSON Schema; the object published on the wire stays exactly as given. Until the
 * validator module has loaded (it starts loading here), `validate` answers with a promise.
 */
export function compileJsonSchema(schema: JsonObject): CompiledSchema {
  const draft = dialectOf(schema);
  // The validator annotates the schema it is given, so it gets its own deep copy, with linear formats.
  const copy = structuredClone(schema) as Schema;
  useLinearFormats(copy);
  // With `uniqueItems` somewhere, a second copy without it serves instances whose arrays are all unique.
  const unique = usesUniqueItems(copy) ? withoutUniqueItems(structuredClone(copy)) : undefined;
  let validator: Validator | undefined;
  let validatorWithoutUnique: Validator | undefined;
  const check = (value: unknown, module: ValidatorModule): Validation => {
    let result: ReturnType<Validator['validate']>;
    try {
      const scan = unique === undefined ? 'duplicates' : scanUniqueItems(value);
      if (scan === 'too-costly') return { ok: false, message: 'Arrays too large to check for duplicate items' };
      // Short-circuit: stop at the first error. Collecting every error of a large invalid array
      // overflows the stack and costs time for a message that only shows five.
      if (scan === 'unique') result = (validatorWithoutUnique ??= new module.Validator(unique as Schema, draft, true)).validate(value);
      else result = (validator ??= new module.Validator(copy, draft, true)).validate(value);
    } catch (error) {
      // The validator recurses once per level of nesting; a value nested deeper than the stack is invalid input.
      if (error instanceof RangeError) return { ok: false, message: 'Value is nested too deeply to validate' };
      throw error;
    }
    return result.valid ? { ok: true, value } : { ok: false, message: describe(result.errors) };
  };
  if (validatorModule.loaded === undefined) validatorModule.load().catch(() => {}); // a failure surfaces on the first validate
  return {
    jsonSchema: schema,
    validate(value) {
      const module = validatorModule.loaded;
      return module !== undefined ? check(value, module) : validatorModule.load().then((loaded) => check(value, loaded));
    },
  };
}
