/**
 * Resources: static URIs and RFC 6570 templates. Reading matches one canonical URI form, static URIs
 * first, then the most specific template; nothing found is -32602 with `data.uri` (SEP-2164).
 */
import type { Context } from '../context/context.js';
import { ResourceNotFoundError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Annotations, CacheHint, Icon, MaybePromise, ReadResourceResult } from '../protocol/mcp-types.js';
import type { Completer } from './completions.js';
import { toReadResult } from './content.js';
import { Registry } from './registry.js';
import type { TemplateVariableName, TemplateVariables } from './template-variables.js';
import { canonicalUri, foldCase, normalizePercent, parseUriTemplate, type UriTemplate } from './uri-template.js';
import { scopeList, type Caller, type Visibility, type VisibleRule } from './visibility.js';

export interface ResourceOptions<Scope = unknown> {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  icons?: Icon[];
  _meta?: JsonObject;
  /** 2026 cache hint for reads of this resource (default: the server's `cache.reads`). */
  cache?: CacheHint;
  /** Who may see and read it; to everyone else it does not exist (and its reads are never cached publicly). */
  visible?: VisibleRule<Scope>;
  /** OAuth scopes a caller's token needs to see and read it (default: the server's `scopes`). See docs/authorization.md. */
  scopes?: readonly string[];
  /** Replaces what is registered under the same URI or URI template; without it a second registration is an error. */
  replace?: boolean;
}

export interface TemplateOptions<T extends string = string, Scope = unknown> extends Omit<ResourceOptions<Scope>, 'size'> {
  /** Completion for template variables, by variable name. */
  complete?: { [K in TemplateVariableName<T>]?: Completer };
}

/**
 * Returns contents: a string (text), bytes (blob), any other value (JSON), `{ text | blob, mimeType }`,
 * an array of those, or a full ReadResourceResult. `undefined` means "no such resource".
 */
export type ResourceReader<Scope> = (uri: string, ctx: Context<Scope>) => MaybePromise<unknown>;
export type TemplateReader<Scope, T extends string = string> = (
  uri: string,
  variables: TemplateVariables<T>,
  ctx: Context<Scope>,
) => MaybePromise<unknown>;

/** What a static resource and a template share as registry entries. */
interface EntryBase<Scope> {
  readonly id: string;
  readonly definition: JsonObject;
  readonly visible: VisibleRule<Scope> | undefined;
  readonly scopes: readonly string[] | undefined;
  readonly mimeType: string | undefined;
  readonly cache: CacheHint | undefined;
}
export interface StaticEntry<Scope> extends EntryBase<Scope> {
  readonly kind: 'resource';
  readonly read: ResourceReader<Scope>;
}
export interface TemplateEntry<Scope> extends EntryBase<Scope> {
  readonly kind: 'resourceTemplate';
  readonly template: UriTemplate;
  readonly complete: Record<string, Completer> | undefined;
  readonly read: TemplateReader<Scope>;
}

function ruleOf<Scope>(id: string, rule: VisibleRule<Scope> | undefined): VisibleRule<Scope> | undefined {
  if (rule !== undefined && typeof rule !== 'function') throw new Error(`Resource ${id}: visible must be a function`);
  return rule;
}

const defaultName = (uri: string): string => uri.replace(/[/?#]+$/, '').split(/[/:]/).pop() || uri;

/** What a read found: the contents, the resource's own cache hint, and whether a visibility rule applied. */
export interface ReadOutcome {
  result: ReadResourceResult;
  cache: CacheHint | undefined;
  /** True when who may read it depends on the caller: the answer must not sit in a shared cache. */
  personal: boolean;
}

function definitionOf<Scope>(key: 'uri' | 'uriTemplate', value: string, { cache: _cache, visible: _visible, scopes: _scopes, replace: _replace, ...options }: ResourceOptions<Scope>): JsonObject {
  const definition: JsonObject = { [key]: value, name: options.name ?? defaultName(value), ...options };
  for (const k of Object.keys(definition)) if (definition[k] === undefined) delete definition[k];
  return definition;
}

export class ResourceRegistry<Scope> {
  readonly #static: Registry<StaticEntry<Scope>, Scope>;
  readonly #templates: Registry<TemplateEntry<Scope>, Scope>;
  #bySpecificity: TemplateEntry<Scope>[] | undefined;

  constructor(onChange: () => void, visibility?: Visibility<Scope>) {
    this.#static = new Registry(onChange, visibility);
    this.#templates = new Registry(() => {
      this.#bySpecificity = undefined;
      onChange();
    }, visibility);
  }

  /** True when resources or templates may differ by caller. */
  get personal(): boolean {
    return this.#static.personal || this.#templates.personal;
  }

  get size(): number {
    return this.#static.size + this.#templates.size;
  }

  /** Registers a resource at a fixed URI; returns a function that removes it. */
  add(uri: string, options: ResourceOptions<Scope>, read: ResourceReader<Scope>): () => boolean {
    if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) throw new Error(`Invalid resource URI: ${uri}`);
    if (/[{}]/.test(uri)) throw new Error(`Resource URI ${uri} has braces: a URI with variables is a template, register it with resourceTemplate()`);
    const key = canonicalUri(uri);
    const entry: StaticEntry<Scope> = {
      kind: 'resource',
      id: uri,
      definition: definitionOf('uri', uri, options),
      visible: ruleOf(uri, options.visible),
      scopes: scopeList(`Resource ${uri}`, options.scopes),
      mimeType: options.mimeType,
      cache: options.cache,
      read,
    };
    return this.#static.add(key, entry, options.replace === true);
  }

  /** Registers an RFC 6570 template such as `file:///{+path}`; returns a function that removes it. */
  addTemplate<T extends string>(uriTemplate: T, options: TemplateOptions<NoInfer<T>, Scope>, read: TemplateReader<Scope, NoInfer<T>>): () => boolean {
    // Not canonicalised as a URI first: that lowercased `{userId}` after `scheme://` (the parser folds its literals).
    const template = parseUriTemplate(uriTemplate);
    const { complete, ...wire } = options;
    const entry: TemplateEntry<Scope> = {
      kind: 'resourceTemplate',
      id: uriTemplate,
      definition: definitionOf('uriTemplate', uriTemplate, wire),
      visible: ruleOf(uriTemplate, options.visible),
      scopes: scopeList(`Resource template ${uriTemplate}`, options.scopes),
      mimeType: options.mimeType,
      cache: options.cache,
      template,
      complete: complete as Record<string, Completer> | undefined,
      read: read as TemplateReader<Scope>,
    };
    return this.#templates.add(uriTemplate, entry, options.replace === true);
  }

  /** The registered resources and templates, whoever may see them (a mount re-registers them under its namespace). */
  entries(): { resources: readonly StaticEntry<Scope>[]; templates: readonly TemplateEntry<Scope>[] } {
    return { resources: this.#static.values(), templates: this.#templates.values() };
  }

  /** Whether this caller may see the entry (its rules, the server's filter, its scopes). */
  allows(entry: StaticEntry<Scope> | TemplateEntry<Scope>, caller: Caller<Scope>): boolean {
    return entry.kind === 'resource' ? this.#static.allows(entry, caller) : this.#templates.allows(entry, caller);
  }

  remove(uri: string): boolean {
    return this.#static.remove(canonicalUri(uri)) || this.#templates.remove(uri);
  }

  list(): readonly JsonObject[] {
    return this.#static.list();
  }

  listTemplates(): readonly JsonObject[] {
    return this.#templates.list();
  }

  /** The resources this caller may see. */
  listFor(caller: Caller<Scope>): readonly JsonObject[] {
    return this.#static.listFor(caller);
  }

  /** The templates this caller may see. */
  listTemplatesFor(caller: Caller<Scope>): readonly JsonObject[] {
    return this.#templates.listFor(caller);
  }

  /** Resources then templates this caller may see (for list_changed: one event covers both). */
  visibleTo(caller: Caller<Scope>): readonly unknown[] {
    return [...this.#static.visibleTo(caller), ...this.#templates.visibleTo(caller)];
  }

  /** A template by its URI template, if this caller may see it. */
  findTemplate(uriTemplate: string, caller: Caller<Scope>): TemplateEntry<Scope> | undefined {
    return this.#templates.find(uriTemplate, caller);
  }

  /** Whether some template has a completer (that this caller may see, when one is given). */
  hasCompletions(caller?: Caller<Scope>): boolean {
    return this.#templates.values().some((e) => e.complete !== undefined && (caller === undefined || this.#templates.allows(e, caller)));
  }

  /**
   * True when `uri` is served by a resource or template that exists but that this caller may not see
   * (and by nothing it may see): a 2025 subscription to it must be answered as for an unknown URI.
   */
  hiddenFrom(uri: string, caller: Caller<Scope>): boolean {
    if (!this.personal) return false;
    const key = canonicalUri(uri);
    if (this.#static.find(key, caller) !== undefined) return false;
    let exists = this.#static.has(key);
    for (const entry of this.#templates.values()) {
      if (!entry.template.matchCanonical(key)) continue;
      if (this.#templates.allows(entry, caller)) return false;
      exists = true;
    }
    return exists;
  }

  /**
   * Reads a resource, with its own cache hint if it has one; nothing found is -32602 with data.uri.
   * A resource or template this caller may not see is skipped, exactly as if it were not registered.
   */
  async read(uri: string, ctx: Context<Scope>): Promise<ReadOutcome> {
    const cased = normalizePercent(uri); // template variables are read from it, with their case
    const key = foldCase(cased);
    const personal = this.personal;
    const fixed = this.#static.find(key, ctx);
    if (fixed) return { result: this.#shape(uri, await fixed.read(uri, ctx), fixed.mimeType), cache: fixed.cache, personal };
    this.#bySpecificity ??= [...this.#templates.values()].sort((a, b) => b.template.specificity - a.template.specificity);
    for (const entry of this.#bySpecificity) {
      const vars = entry.template.matchCanonical(key, cased);
      if (vars && this.#templates.usable(entry, ctx)) {
        return { result: this.#shape(uri, await entry.read(uri, vars, ctx), entry.mimeType), cache: entry.cache, personal };
      }
    }
    throw new ResourceNotFoundError(uri);
  }

  #shape(uri: string, value: unknown, mimeType: string | undefined): ReadResourceResult {
    if (value === undefined || value === null) throw new ResourceNotFoundError(uri);
    const result = toReadResult(uri, value, mimeType);
    if (result.contents.length === 0) throw new ResourceNotFoundError(uri);
    return result;
  }
}
