/** Prompts: arguments with required flags, validation, and message conversion. */
import type { Context } from '../context/context.js';
import { invalidParams } from '../protocol/errors.js';
import { own } from '../platform/own.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import {
  compileSchema, type CompiledSchema, type InferOutput, type JsonSchemaConverter, type SchemaLike,
  type StandardSchemaV1,
} from '../schema/standard-schema.js';
import type { GetPromptResult, Icon, MaybePromise } from '../protocol/mcp-types.js';
import type { Completer } from './completions.js';
import { toPromptResult } from './content.js';
import { Registry } from './registry.js';
import { scopeList, type Caller, type Visibility, type VisibleRule } from './visibility.js';

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export type PromptArgs<A> = A extends StandardSchemaV1 ? InferOutput<A> : Record<string, string>;

export interface PromptOptions<A extends SchemaLike | PromptArgument[] | undefined = undefined, Scope = unknown> {
  title?: string;
  description?: string;
  /** A schema of an object of strings, or the argument list itself. */
  arguments?: A;
  icons?: Icon[];
  _meta?: JsonObject;
  /** Argument completion, by argument name. */
  complete?: Record<string, Completer>;
  /** Who may see, get and complete it; to everyone else the prompt does not exist. */
  visible?: VisibleRule<Scope>;
  /** OAuth scopes a caller's token needs to see, get and complete it (default: the server's `scopes`). */
  scopes?: readonly string[];
  /** Replaces what is registered under the same name; without it a second registration is an error. */
  replace?: boolean;
}

/** A string (user text), a message, a content block, an array of those, or a full GetPromptResult. */
export type PromptHandler<Scope, A> = (args: PromptArgs<A>, ctx: Context<Scope>) => MaybePromise<unknown>;

export interface PromptDefinition<Scope, A extends SchemaLike | PromptArgument[] | undefined> extends PromptOptions<A, Scope> {
  name: string;
  handler: PromptHandler<Scope, A>;
}

export interface PromptEntry<Scope> {
  readonly kind: 'prompt';
  readonly id: string;
  readonly name: string;
  readonly definition: JsonObject;
  readonly required: readonly string[];
  readonly schema: CompiledSchema | undefined;
  readonly complete: Record<string, Completer> | undefined;
  readonly visible: VisibleRule<Scope> | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly handler: (args: never, ctx: Context<Scope>) => unknown;
}

function argumentsFromSchema(schema: JsonObject): PromptArgument[] {
  const props = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => {
    const arg: PromptArgument = { name };
    if (typeof p?.title === 'string') arg.title = p.title;
    if (typeof p?.description === 'string') arg.description = p.description;
    if (required.has(name)) arg.required = true;
    return arg;
  });
}

function compilePrompt<Scope>(def: PromptDefinition<Scope, SchemaLike | PromptArgument[] | undefined>, converter?: JsonSchemaConverter): PromptEntry<Scope> {
  const { name, handler, arguments: args, complete, visible, scopes, replace: _replace, ...wire } = def;
  if (typeof name !== 'string' || name.length === 0) throw new Error('A prompt needs a non-empty name');
  if (typeof handler !== 'function') throw new Error(`Prompt "${name}" needs a handler function`);
  if (visible !== undefined && typeof visible !== 'function') throw new Error(`Prompt "${name}": visible must be a function`);
  let list: PromptArgument[] = [];
  let schema: CompiledSchema | undefined;
  if (Array.isArray(args)) list = args;
  else if (args !== undefined) {
    schema = compileSchema(args, 'input', converter);
    list = argumentsFromSchema(schema.jsonSchema);
  }
  const definition: JsonObject = { name, ...wire };
  if (list.length) definition.arguments = list;
  for (const key of Object.keys(definition)) if (definition[key] === undefined) delete definition[key];
  return {
    kind: 'prompt',
    id: name,
    name,
    definition,
    required: list.filter((a) => a.required).map((a) => a.name),
    schema,
    complete,
    visible,
    scopes: scopeList(`Prompt "${name}"`, scopes),
    handler: handler as PromptEntry<Scope>['handler'],
  };
}

export class PromptRegistry<Scope> extends Registry<PromptEntry<Scope>, Scope> {
  constructor(
    onChange: () => void,
    private readonly converter: JsonSchemaConverter | undefined,
    visibility?: Visibility<Scope>,
  ) {
    super(onChange, visibility);
  }

  /** Compiles and registers a prompt (replacing one only with `replace: true`); returns a function that removes it. */
  register<A extends SchemaLike | PromptArgument[] | undefined = undefined>(def: PromptDefinition<Scope, A>): () => boolean {
    const entry = compilePrompt(def as PromptDefinition<Scope, SchemaLike | PromptArgument[] | undefined>, this.converter);
    return this.add(entry.name, entry, def.replace === true);
  }

  /** Whether some prompt has a completer (that this caller may see, when one is given). */
  hasCompletions(caller?: Caller<Scope>): boolean {
    return this.values().some((e) => e.complete !== undefined && (caller === undefined || this.allows(e, caller)));
  }
}

/** Renders a prompt; missing required and invalid arguments are -32602 (an unknown name is the caller's). */
export async function renderPrompt<Scope>(prompt: PromptEntry<Scope>, args: unknown, ctx: Context<Scope>): Promise<GetPromptResult> {
  const given = (args ?? {}) as JsonObject;
  if (typeof given !== 'object' || Array.isArray(given)) throw invalidParams('Prompt arguments must be an object');
  // Prompt arguments are strings on the wire; a schema may say more, the plain list cannot.
  const notStrings = prompt.schema ? [] : Object.keys(given).filter((n) => given[n] !== null && typeof given[n] !== 'string');
  if (notStrings.length) throw invalidParams(`Prompt arguments must be strings: ${notStrings.join(', ')}`);
  const missing = prompt.required.filter((n) => (own(given, n) ?? null) === null);
  if (missing.length) throw invalidParams(`Missing required arguments: ${missing.join(', ')}`, missing);
  let value: unknown = given;
  if (prompt.schema) {
    let checked = prompt.schema.validate(given);
    if (checked instanceof Promise) checked = await checked;
    if (!checked.ok) throw invalidParams(`Invalid arguments for prompt '${prompt.name}': ${checked.message}`);
    value = checked.value;
  }
  const description = prompt.definition.description as string | undefined;
  return toPromptResult(await prompt.handler(value as never, ctx), description);
}
