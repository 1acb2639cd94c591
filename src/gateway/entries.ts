/**
 * Registry entries for an upstream's primitives: the upstream's own wire objects (renamed in a
 * namespace), arguments passed through unchecked (the upstream checks them and answers as it does),
 * and handlers that forward. Visibility and scopes are the attaching server's, as for its own entries.
 */
import type { Context } from '../context/context.js';
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { paramHeadersOf } from '../protocol/standard-headers.js';
import type { Completer } from '../primitives/completions.js';
import type { PromptEntry } from '../primitives/prompts.js';
import type { ToolEntry } from '../primitives/tools.js';
import type { VisibleRule } from '../primitives/visibility.js';
import type { CompiledSchema } from '../schema/standard-schema.js';
import { forward, type ForwardSettings } from './forward.js';

/** Who may see what is attached, and the scopes its use needs (the attaching server's rules). */
export interface AttachRules {
  visible?: VisibleRule<unknown> | undefined;
  scopes?: readonly string[] | undefined;
}

const passThrough = (jsonSchema: JsonObject): CompiledSchema => ({ jsonSchema, validate: (value) => ({ ok: true, value }) });

function headersOf(schema: JsonObject): ToolEntry<unknown>['paramHeaders'] {
  try {
    return paramHeadersOf(schema);
  } catch {
    return []; // declarations the upstream got wrong: its arguments still travel in the body
  }
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** An upstream that runs tasks itself (2026 tasks extension): it decides when a call becomes one. */
function runsTasks(upstream: ForwardSettings['upstream']): boolean {
  const extensions = upstream.capabilities.extensions;
  return isObject(extensions) && extensions[TASKS_EXTENSION] !== undefined;
}

function taskSupportOf(tool: JsonObject): ToolEntry<unknown>['task'] {
  const support = isObject(tool.execution) ? tool.execution.taskSupport : undefined;
  return support === 'optional' || support === 'required' ? support : 'forbidden';
}

export function toolEntry(tool: JsonObject, name: string, settings: ForwardSettings, rules: AttachRules): ToolEntry<unknown> {
  const original = tool.name as string;
  const inputSchema = isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' };
  const forwardCall = (args: JsonObject, ctx: Context<unknown>) => forward(settings, 'tools/call', { name: original, arguments: args }, ctx);
  return {
    kind: 'tool', id: name, name,
    definition: { ...tool, name },
    input: passThrough(inputSchema),
    output: undefined,
    paramHeaders: headersOf(inputSchema),
    requires: undefined,
    visible: rules.visible,
    scopes: rules.scopes,
    // A tool the upstream runs as a task runs as a task of the gateway: the caller gets the task
    // machinery (tasks/get, input while it runs) here. An upstream with tasks of its own makes the
    // call a task when it creates one (its MRTR rounds before stay rounds; upstream-task.ts follows
    // it); otherwise the call is a task at once and the upstream sees one long call.
    task: taskSupportOf(tool),
    taskOnRequest: runsTasks(settings.upstream),
    handler: forwardCall as ToolEntry<unknown>['handler'],
  };
}

/** Completion of one argument, asked of the upstream (`ref` names the prompt or template there). */
export function completers(names: readonly string[], ref: JsonObject, settings: ForwardSettings): Record<string, Completer> {
  const out: Record<string, Completer> = {};
  for (const name of names) {
    out[name] = async (value, context) => {
      const result = await settings.upstream.request('completion/complete', { ref, argument: { name, value }, context: { arguments: context.arguments } });
      const completion = isObject(result.completion) ? result.completion : {};
      return { values: Array.isArray(completion.values) ? (completion.values as string[]) : [], total: completion.total as number | undefined, hasMore: completion.hasMore as boolean | undefined };
    };
  }
  return out;
}

export function promptEntry(prompt: JsonObject, name: string, settings: ForwardSettings, rules: AttachRules, complete: boolean): PromptEntry<unknown> {
  const original = prompt.name as string;
  const args = Array.isArray(prompt.arguments) ? (prompt.arguments as JsonObject[]).map((a) => String(a.name)) : [];
  const render = (given: JsonObject, ctx: Context<unknown>) => forward(settings, 'prompts/get', { name: original, arguments: given }, ctx);
  return {
    kind: 'prompt', id: name, name,
    definition: { ...prompt, name },
    required: [], // the upstream says what is missing, in its own words
    schema: undefined,
    complete: complete && args.length > 0 ? completers(args, { type: 'ref/prompt', name: original }, settings) : undefined,
    visible: rules.visible,
    scopes: rules.scopes,
    handler: render as PromptEntry<unknown>['handler'],
  };
}

/** The variable names of an RFC 6570 template (`{+path}`, `{a,b*}`, `{?q}`...). */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const [, body] of template.matchAll(/\{([^}]*)\}/g)) {
    for (const part of (body ?? '').replace(/^[+#./;?&]/, '').split(',')) names.push(part.replace(/(\*|:\d+)$/, ''));
  }
  return names.filter((n) => n.length > 0);
}
