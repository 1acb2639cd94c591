/**
 * Resources: static URIs and RFC 6570 templates. Reading matches one canonical URI form, static URIs
 * first, then the most specific template; nothing found is -32602 with `data.uri` (SEP-2164).
 */
import type { Context } from '../context/context.js';
import { ResourceNotFoundError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { Annotations, CacheHint, Icon, ReadResourceResult } from '../types.js';
import type { Completer } from './completions.js';
import { toReadResult } from './content.js';
import type { MaybePromise } from './tools.js';
import { Registry } from './registry.js';
import type { TemplateVariableName, TemplateVariables } from './template-variables.js';
import { canonicalUri, parseUriTemplate, type UriTemplate } from './uri-template.js';

export interface ResourceOptions {
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
}

export interface TemplateOptions<T extends string = string> extends Omit<ResourceOptions, 'size'> {
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

interface StaticEntry<Scope> {
  readonly definition: JsonObject;
  readonly mimeType: string | undefined;
  readonly cache: CacheHint | undefined;
  readonly read: ResourceReader<Scope>;
}
interface TemplateEntry<Scope> {
  readonly definition: JsonObject;
  readonly mimeType: string | undefined;
  readonly cache: CacheHint | undefined;
  readonly template: UriTemplate;
  readonly complete: Record<string, Completer> | undefined;
  readonly read: TemplateReader<Scope>;
}

const defaultName = (uri: string): string => uri.replace(/[/?#]+$/, '').split(/[/:]/).pop() || uri;

function definitionOf(key: 'uri' | 'uriTemplate', value: string, { cache: _cache, ...options }: ResourceOptions): JsonObject {
  const definition: JsonObject = { [key]: value, name: options.name ?? defaultName(value), ...options };
  for (const k of Object.keys(definition)) if (definition[k] === undefined) delete definition[k];
  return definition;
}

export class ResourceRegistry<Scope> {
  readonly #static: Registry<StaticEntry<Scope>>;
  readonly #templates: Registry<TemplateEntry<Scope>>;
  #bySpecificity: TemplateEntry<Scope>[] | undefined;

  constructor(onChange: () => void) {
    this.#static = new Registry(onChange);
    this.#templates = new Registry(() => {
      this.#bySpecificity = undefined;
      onChange();
    });
  }

  get size(): number {
    return this.#static.size + this.#templates.size;
  }

  /** Registers a resource at a fixed URI; returns a function that removes it. */
  add(uri: string, options: ResourceOptions, read: ResourceReader<Scope>): () => boolean {
    if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) throw new Error(`Invalid resource URI: ${uri}`);
    const key = canonicalUri(uri);
    const entry: StaticEntry<Scope> = { definition: definitionOf('uri', uri, options), mimeType: options.mimeType, cache: options.cache, read };
    return this.#static.add(key, entry);
  }

  /** Registers an RFC 6570 template such as `file:///{+path}`; returns a function that removes it. */
  addTemplate<T extends string>(uriTemplate: T, options: TemplateOptions<NoInfer<T>>, read: TemplateReader<Scope, NoInfer<T>>): () => boolean {
    const template = parseUriTemplate(canonicalUri(uriTemplate));
    const { complete, ...wire } = options;
    const entry: TemplateEntry<Scope> = {
      definition: definitionOf('uriTemplate', uriTemplate, wire),
      mimeType: options.mimeType,
      cache: options.cache,
      template,
      complete: complete as Record<string, Completer> | undefined,
      read: read as TemplateReader<Scope>,
    };
    return this.#templates.add(uriTemplate, entry);
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

  findTemplate(uriTemplate: string): TemplateEntry<Scope> | undefined {
    return this.#templates.get(uriTemplate);
  }

  hasCompletions(): boolean {
    return this.#templates.values().some((e) => e.complete !== undefined);
  }

  /** Reads a resource, with its own cache hint if it has one; nothing found is -32602 with data.uri. */
  async read(uri: string, ctx: Context<Scope>): Promise<{ result: ReadResourceResult; cache: CacheHint | undefined }> {
    const key = canonicalUri(uri);
    const fixed = this.#static.get(key);
    if (fixed) return { result: this.#shape(uri, await fixed.read(uri, ctx), fixed.mimeType), cache: fixed.cache };
    this.#bySpecificity ??= [...this.#templates.values()].sort((a, b) => b.template.specificity - a.template.specificity);
    for (const entry of this.#bySpecificity) {
      const vars = entry.template.matchCanonical(key);
      if (vars) return { result: this.#shape(uri, await entry.read(uri, vars, ctx), entry.mimeType), cache: entry.cache };
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
