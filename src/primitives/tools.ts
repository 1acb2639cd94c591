/** Tools: registration (schemas compiled once), listing, and a call that never throws for bad input. */
import type { Context } from '../context/context.js';
import { McpError, ProtocolError, UserError, clientErrorText, type ErrorTextSettings } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { paramHeadersOf, type ParamHeader } from '../protocol/standard-headers.js';
import {
  compileSchema, type CompiledSchema, type InferOutput, type JsonSchema, type JsonSchemaConverter, type SchemaLike, type StandardSchemaV1, type Validation,
} from '../schema/standard-schema.js';
import type { FromJsonSchema } from '../schema/json-schema-types.js';
import type { CallToolResult, ClientCapabilities, Icon, MaybePromise, ToolAnnotations } from '../protocol/mcp-types.js';
import { structuredOf, toToolResult, toolError, withStructured } from './content.js';
import { Registry } from './registry.js';
import { scopeList, type Visibility, type VisibleRule } from './visibility.js';

export type ToolArgs<In> = In extends StandardSchemaV1 ? InferOutput<In> : In extends JsonSchema ? ArgsOf<FromJsonSchema<In>> : Record<string, unknown>;
/** CallToolResult stays outside the conditional, so a returned result literal keeps its contextual type ('text'). */
export type ToolReturn<Out> =
  | CallToolResult
  | (Out extends StandardSchemaV1 ? InferOutput<Out> : Out extends JsonSchema ? FromJsonSchema<Out, false> : unknown);
/** A raw schema whose shape is not known at compile time still gives an arguments object. */
type ArgsOf<T> = unknown extends T ? Record<string, unknown> : T;

export interface ToolOptions<In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined, Scope = unknown> {
  title?: string;
  description?: string;
  /** Standard Schema (Zod, Valibot...) or JSON Schema of the arguments object. */
  input?: In;
  /** Declares structured output: the return value becomes `structuredContent` and is checked against it. */
  output?: Out;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: JsonObject;
  /** Client capabilities the tool cannot work without (2026: -32021 when undeclared). */
  requires?: ClientCapabilities;
  /** Who may see and call it; to everyone else the tool does not exist (see docs/authorization.md). */
  visible?: VisibleRule<Scope>;
  /** OAuth scopes a caller's token needs to see and call it (default: the server's `scopes`); without them, 403 step-up. */
  scopes?: readonly string[];
  /** Replaces what is registered under the same name; without it a second registration is an error. */
  replace?: boolean;
  /**
   * Whether the tool may run as a task (2025 `execution.taskSupport`): 'forbidden' (the default),
   * 'optional' (a task when the client supports tasks), 'required' (refused to clients that do not).
   */
  task?: TaskSupport;
}

export type TaskSupport = 'forbidden' | 'optional' | 'required';

export type ToolHandler<Scope, In, Out> = (args: ToolArgs<In>, ctx: Context<Scope>) => MaybePromise<ToolReturn<Out>>;

export interface ToolDefinition<Scope, In extends SchemaLike | undefined, Out extends SchemaLike | undefined>
  extends ToolOptions<In, Out, Scope> {
  name: string;
  handler: ToolHandler<Scope, In, Out>;
}

export interface ToolEntry<Scope> {
  readonly kind: 'tool';
  readonly id: string;
  readonly name: string;
  /** The Tool object `tools/list` publishes, built once. */
  readonly definition: JsonObject;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | undefined;
  readonly paramHeaders: readonly ParamHeader[];
  readonly requires: ClientCapabilities | undefined;
  readonly visible: VisibleRule<Scope> | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly task: TaskSupport;
  /**
   * A task only when the handler calls `ctx.task()`, even after it began waiting (a proxied tool:
   * the upstream decides, its MRTR rounds stay plain rounds). Unset: a task once the handler waits.
   */
  readonly taskOnRequest?: boolean;
  readonly handler: (args: never, ctx: Context<Scope>) => unknown;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** A tool without an input schema takes any arguments object (dispatch already checked it is one). */
const NO_ARGUMENTS: CompiledSchema = {
  jsonSchema: { type: 'object', properties: {} },
  validate: (value) => ({ ok: true, value }),
};

function compileTool<Scope>(def: ToolDefinition<Scope, SchemaLike | undefined, SchemaLike | undefined>, converter?: JsonSchemaConverter): ToolEntry<Scope> {
  const { name, handler, input, output, requires, visible, scopes, task = 'forbidden', replace: _replace, ...wire } = def;
  if (task !== 'forbidden' && task !== 'optional' && task !== 'required') {
    throw new Error(`Tool "${name}": task must be 'forbidden', 'optional' or 'required'`);
  }
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new Error(`Invalid tool name ${JSON.stringify(name)}: use 1-128 characters of A-Z a-z 0-9 _ . -`);
  }
  if (typeof handler !== 'function') throw new Error(`Tool "${name}" needs a handler function`);
  if (visible !== undefined && typeof visible !== 'function') throw new Error(`Tool "${name}": visible must be a function`);
  const inputSchema = input === undefined ? NO_ARGUMENTS : compileSchema(input, 'input', converter);
  if (inputSchema.jsonSchema.type !== 'object') throw new Error(`Tool "${name}": the input schema must describe an object`);
  const outputSchema = output === undefined ? undefined : compileSchema(output, 'output', converter);
  const definition: JsonObject = { name, ...wire, inputSchema: inputSchema.jsonSchema };
  if (outputSchema) definition.outputSchema = outputSchema.jsonSchema;
  if (task !== 'forbidden') definition.execution = { taskSupport: task };
  for (const key of Object.keys(definition)) if (definition[key] === undefined) delete definition[key];
  return {
    kind: 'tool',
    id: name,
    name,
    definition,
    input: inputSchema,
    output: outputSchema,
    paramHeaders: paramHeadersOf(inputSchema.jsonSchema),
    requires,
    visible,
    scopes: scopeList(`Tool "${name}"`, scopes),
    task,
    handler: handler as ToolEntry<Scope>['handler'],
  };
}

const isProtocolError = (error: unknown): error is ProtocolError => {
  try {
    return error instanceof ProtocolError;
  } catch {
    return false; // a Proxy whose getPrototypeOf trap throws
  }
};

export class ToolRegistry<Scope> extends Registry<ToolEntry<Scope>, Scope> {
  constructor(
    onChange: () => void,
    private readonly converter: JsonSchemaConverter | undefined,
    visibility?: Visibility<Scope>,
  ) {
    super(onChange, visibility);
  }

  /** Compiles and registers a tool (replacing one only with `replace: true`); returns a function that removes it. */
  register<In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined>(
    def: ToolDefinition<Scope, In, Out>,
  ): () => boolean {
    const entry = compileTool(def as ToolDefinition<Scope, SchemaLike | undefined, SchemaLike | undefined>, this.converter);
    return this.add(entry.name, entry, def.replace === true);
  }

  /** Whether any tool may run as a task: the tasks capability and methods exist only then. */
  servesTasks(): boolean {
    return this.values().some((tool) => tool.task !== 'forbidden');
  }
}

/** A promise or any other thenable a handler may return. */
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function');

/**
 * Runs a tool. Invalid arguments, a throwing handler and output that breaks the output schema are
 * `isError` results (SEP-1303); only an unknown tool is a protocol error (-32602, raised by the caller).
 * Synchronous from end to end when the schemas and the handler are: no promise is made for a tool
 * that does not need one.
 */
export function runTool<Scope>(tool: ToolEntry<Scope>, args: JsonObject, ctx: Context<Scope>, log: ErrorLog, texts: ErrorTextSettings): MaybePromise<CallToolResult> {
  const checked = tool.input.validate(args);
  if (!(checked instanceof Promise)) return invoke(tool, checked, ctx, log, texts);
  // Cancelled while an asynchronous validation ran: the answer is already given, so the handler is not started.
  return checked.then((c) => (ctx.signal.aborted ? toolError('Cancelled') : invoke(tool, c, ctx, log, texts)));
}

/** Where a tool's unexpected failure is logged: the server's `onError`, with the request it broke. */
export interface ErrorLog {
  reportError(error: unknown): void;
}

function invoke<Scope>(tool: ToolEntry<Scope>, checked: Validation, ctx: Context<Scope>, log: ErrorLog, texts: ErrorTextSettings): MaybePromise<CallToolResult> {
  if (!checked.ok) return toolError(`Invalid arguments for tool '${tool.name}': ${checked.message}`);
  let value: unknown;
  try {
    value = tool.handler(checked.value as never, ctx);
  } catch (error) {
    return failed(error, ctx, log, texts);
  }
  return isThenable(value) ? Promise.resolve(value).then((v) => checkOutput(tool, v), (error: unknown) => failed(error, ctx, log, texts)) : checkOutput(tool, value);
}

/**
 * A thrown error becomes an `isError` result, except a protocol error (e.g. -32021 from ctx.elicit),
 * which propagates. A UserError or McpError is the handler's deliberate answer: its message is the
 * text. Anything else is logged, as a failing prompt or resource is (the server sees every tool that
 * broke), and the client reads only the generic text (`errorMessage`). Not logged when the request was
 * stopped (cancel, timeout, shutdown): the handler throwing then is how it obeys `ctx.signal`, and the
 * stop itself is logged once, at debug level, by the request.
 */
function failed<Scope>(error: unknown, ctx: Context<Scope>, log: ErrorLog, texts: ErrorTextSettings): CallToolResult {
  if (isProtocolError(error)) throw error;
  if (!isDeliberate(error) && !ctx.signal.aborted) log.reportError(error);
  return toolError(clientErrorText(error, texts, 'The tool failed'));
}

const isDeliberate = (error: unknown): boolean => {
  try {
    return error instanceof McpError || error instanceof UserError;
  } catch {
    return false;
  }
};

function checkOutput<Scope>(tool: ToolEntry<Scope>, value: unknown): MaybePromise<CallToolResult> {
  let result: CallToolResult;
  try {
    result = toToolResult(value, tool.output !== undefined);
  } catch (error) {
    // A BigInt or a cycle: the tool's own mistake, told to the model like a broken output schema.
    const reason = String((error as Error)?.message ?? error).split('\n')[0];
    return toolError(`Tool '${tool.name}' returned a value that cannot be sent as JSON: ${reason}`);
  }
  if (!tool.output || result.isError) return result;
  const out = tool.output.validate(structuredOf(value));
  return out instanceof Promise ? out.then((o) => published(tool, result, o)) : published(tool, result, out);
}

function published<Scope>(tool: ToolEntry<Scope>, result: CallToolResult, out: Validation): CallToolResult {
  if (!out.ok) return toolError(`Tool '${tool.name}' returned output that does not match its output schema: ${out.message}`);
  // Publish what the schema produced (defaults filled, unknown keys stripped), never the raw value.
  return result.structuredContent === out.value ? result : withStructured(result, out.value);
}
