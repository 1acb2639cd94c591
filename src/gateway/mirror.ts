/**
 * Keeps an upstream's lists registered in the attaching server: read whole (every page, bounded) at
 * start, again on the upstream's `list_changed` (and after a restart), and applied as a difference:
 * entries that went are removed, the others replaced. The registries then tell the server's own
 * clients (`list_changed`), and `tools/list` is answered from the registry, never by a round trip.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { AttachPoint } from './attach-point.js';
import { type AttachRules, completers, promptEntry, templateVariables, toolEntry } from './entries.js';
import { forward, type ForwardSettings } from './forward.js';
import type { Naming } from './naming.js';

export type ListKind = 'tools' | 'prompts' | 'resources' | 'templates';

const LISTS: Record<ListKind, { method: string; field: string; capability: string }> = {
  tools: { method: 'tools/list', field: 'tools', capability: 'tools' },
  prompts: { method: 'prompts/list', field: 'prompts', capability: 'prompts' },
  resources: { method: 'resources/list', field: 'resources', capability: 'resources' },
  templates: { method: 'resources/templates/list', field: 'resourceTemplates', capability: 'resources' },
};

/** What one upstream's list may hold, and how many pages are read for it. */
const MAX_ITEMS = 10_000;
const MAX_PAGES = 100;

export class Mirror {
  /** The keys registered per list, to remove what the upstream no longer has. */
  readonly #registered: Record<ListKind, Map<string, () => boolean>> = { tools: new Map(), prompts: new Map(), resources: new Map(), templates: new Map() };

  constructor(
    private readonly point: AttachPoint<unknown>,
    private readonly settings: ForwardSettings,
    private readonly naming: Naming,
    private readonly rules: AttachRules,
  ) {}

  /** Reads every list the upstream serves and registers it. */
  async syncAll(): Promise<void> {
    await Promise.all((Object.keys(LISTS) as ListKind[]).map((kind) => this.sync(kind)));
  }

  async sync(kind: ListKind): Promise<void> {
    if (!isObject(this.settings.upstream.capabilities[LISTS[kind].capability])) return this.#apply(kind, []);
    this.#apply(kind, await this.#readAll(kind));
  }

  /** The upstream's URI for a published one this mirror serves (a listed resource, or any URI of its namespace). */
  originalOf(uri: string): string | undefined {
    if (this.#registered.resources.has(uri)) return this.naming.originalUri(uri);
    return this.naming.namespace === undefined ? undefined : this.naming.originalUri(uri);
  }

  /** Removes everything this mirror registered. */
  clear(): void {
    for (const kind of Object.keys(LISTS) as ListKind[]) this.#apply(kind, []);
  }

  async #readAll(kind: ListKind): Promise<JsonObject[]> {
    const { method, field } = LISTS[kind];
    const items: JsonObject[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES && items.length < MAX_ITEMS; page++) {
      const result = await this.settings.upstream.request(method, cursor === undefined ? {} : { cursor });
      const list = result[field];
      if (Array.isArray(list)) items.push(...list.filter(isObject));
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    return items.slice(0, MAX_ITEMS);
  }

  #apply(kind: ListKind, items: readonly JsonObject[]): void {
    const before = this.#registered[kind];
    const after = new Map<string, () => boolean>();
    for (const item of items) {
      try {
        // Only what this mirror registered is replaced: a name the server already serves otherwise stays the server's.
        const added = this.#register(kind, item, (key) => before.has(key));
        if (added !== undefined) after.set(added.key, added.remove);
      } catch (error) {
        // One odd entry (a name taken, a template that does not parse) is skipped, not fatal.
        this.point.reportError(new Error(`Upstream ${this.settings.upstream.name}: an entry of ${kind} was skipped: ${(error as Error)?.message}`));
      }
    }
    for (const [key, remove] of before) if (!after.has(key)) remove();
    this.#registered[kind] = after;
  }

  #register(kind: ListKind, item: JsonObject, owns: (key: string) => boolean): { key: string; remove: () => boolean } | undefined {
    const { point, settings, naming, rules } = this;
    const completes = isObject(settings.upstream.capabilities.completions);
    if (kind === 'tools' && typeof item.name === 'string') {
      const name = naming.name(item.name);
      return { key: name, remove: point.tools.add(name, toolEntry(item, name, settings, rules), owns(name)) };
    }
    if (kind === 'prompts' && typeof item.name === 'string') {
      const name = naming.name(item.name);
      return { key: name, remove: point.prompts.add(name, promptEntry(item, name, settings, rules, completes), owns(name)) };
    }
    if (kind === 'resources' && typeof item.uri === 'string') return this.#resource(item, item.uri, owns);
    if (kind === 'templates' && typeof item.uriTemplate === 'string') return this.#template(item, item.uriTemplate, completes, owns);
    return undefined;
  }

  #resource(item: JsonObject, original: string, owns: (key: string) => boolean): { key: string; remove: () => boolean } {
    const uri = this.naming.uri(original);
    const { uri: _uri, ...wire } = item;
    const read = (_asked: string, ctx: Parameters<typeof forward>[3]) => forward(this.settings, 'resources/read', { uri: original }, ctx, uri).then((r) => this.naming.contents(r));
    return { key: uri, remove: this.point.resources.add(uri, { ...wire, ...this.rules, replace: owns(uri) }, read) };
  }

  #template(item: JsonObject, original: string, completes: boolean, owns: (key: string) => boolean): { key: string; remove: () => boolean } {
    const template = this.naming.uri(original);
    const { uriTemplate: _t, ...wire } = item;
    const complete = completes ? completers(templateVariables(original), { type: 'ref/resource', uri: original }, this.settings) : undefined;
    const read = (asked: string, _vars: unknown, ctx: Parameters<typeof forward>[3]) =>
      forward(this.settings, 'resources/read', { uri: this.naming.originalUri(asked) ?? asked }, ctx, asked).then((r) => this.naming.contents(r));
    return { key: template, remove: this.point.resources.addTemplate(template, { ...wire, ...this.rules, complete, replace: owns(template) }, read) };
  }
}
