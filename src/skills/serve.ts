/**
 * The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) served on the public extension
 * API: `skills/list`, `skills/get` and `resources/directory/read` are `mcp.method()` registrations
 * declaring the extension's capability, and every skill file is an `mcp.resource()` (so
 * `resources/read`, the `resources` capability, visibility and telemetry are the resources' own).
 */
import { revisionOf } from '../protocol/revisions/index.js';
import type { Context } from '../context/context.js';
import type { MethodHandler, MethodOptions } from '../methods/extension.js';
import { invalidParams } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { paginate } from '../primitives/pagination.js';
import type { ResourceOptions, ResourceReader } from '../primitives/resources.js';
import type { Caller } from '../primitives/visibility.js';
import type { SchemaLike, StandardSchemaV1 } from '../schema/standard-schema.js';
import type { CacheHint } from '../protocol/mcp-types.js';
import type { Skill } from './skill.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** What the skill set needs of the server: the public registration API, nothing more. */
export interface SkillHost<Scope> {
  method(name: string, options: MethodOptions<SchemaLike | undefined, Scope>, handler: MethodHandler<Scope, unknown>): unknown;
  resource(uri: string, options: ResourceOptions<Scope>, read: ResourceReader<Scope>): unknown;
}

export interface SkillSettings<Scope> {
  /** Serve `resources/directory/read` and declare `directoryRead: true` (default true). */
  directoryRead: boolean;
  pageSize: number;
  /** 2026 cache hints: `skills/list` like the other lists, `skills/get` like `resources/read`. */
  listCache: CacheHint;
  getCache: CacheHint;
  /** Whether a resource exists but this caller may not see it (the server-wide `visible` filter): a skill whose SKILL.md is hidden is hidden. */
  hidden(uri: string, caller: Caller<Scope>): boolean;
  /**
   * Whether what a caller sees of the resources may differ by caller (a `visible` rule, the server's
   * filter, scopes: the resources' own answer, since skills are resources): then answers are private.
   */
  personal(): boolean;
}

/**
 * The methods' params, checked as a Standard Schema written here: a JSON Schema would load the JSON
 * Schema validator at start-up and make the first call asynchronous, for two string fields.
 */
function params(uri: 'uri' | 'none'): StandardSchemaV1<JsonObject> {
  const validate = (value: unknown) => {
    const given = value as JsonObject;
    if (uri === 'uri' && typeof given.uri !== 'string') return { issues: [{ message: 'must be a string', path: ['uri'] }] };
    if (given.cursor !== undefined && typeof given.cursor !== 'string') return { issues: [{ message: 'must be a string', path: ['cursor'] }] };
    return { value: given };
  };
  return { '~standard': { version: 1, vendor: 'minimcp', validate } };
}
const URI_PARAMS = params('uri');
const LIST_PARAMS = params('none');

/**
 * Skills served by this set without being its own (a mounted server's, src/gateway/mount-skills.ts):
 * answers for one caller, already in this server's URIs, and with its own visibility applied.
 */
export interface SkillSource<Scope> {
  /** The `skills/list` entries this caller may see. */
  entries(caller: Caller<Scope>): JsonObject[];
  /** The entry of the skill at `uri`, if it has it and the caller may see it. */
  entry(uri: string, caller: Caller<Scope>): JsonObject | undefined;
  /** The children of the directory `uri`, if it has it and the caller may see it. */
  directory(uri: string, caller: Caller<Scope>): readonly JsonObject[] | undefined;
}

/** Every skill of one server, by the URI of its SKILL.md, in registration order. */
export class SkillSet<Scope> {
  readonly #skills = new Map<string, Skill<Scope>>();
  /** Directory URI -> the skill it belongs to (a nested skill's directories belong to both: the innermost wins). */
  readonly #directories = new Map<string, Skill<Scope>>();
  readonly #settings: SkillSettings<Scope>;
  readonly #sources = new Set<SkillSource<Scope>>();

  constructor(host: SkillHost<Scope>, settings: SkillSettings<Scope>) {
    this.#settings = settings;
    // Not scoped as methods: like resources/list, they answer with what the caller's token may see.
    const capability = { extension: SKILLS_EXTENSION };
    const scopes: string[] = [];
    host.method('skills/list', { params: LIST_PARAMS, capability, cache: settings.listCache, scopes }, (params, ctx) => this.#list(params, ctx));
    host.method('skills/get', { params: URI_PARAMS, capability, cache: settings.getCache, scopes }, (params, ctx) => this.#get(params, ctx));
    if (settings.directoryRead) {
      const withDirectories = { extension: SKILLS_EXTENSION, settings: { directoryRead: true } };
      host.method('resources/directory/read', { params: URI_PARAMS, capability: withDirectories, scopes },
        (params, ctx) => this.#readDirectory(params, ctx));
    }
  }

  get directoryRead(): boolean {
    return this.#settings.directoryRead;
  }

  has(uri: string): boolean {
    return this.#skills.has(uri);
  }

  /** Serves another set's skills too (a mount); returns the function that stops. */
  addSource(source: SkillSource<Scope>): () => void {
    this.#sources.add(source);
    return () => void this.#sources.delete(source);
  }

  /** This set's own `skills/list` entries the caller may see. */
  entries(caller: Caller<Scope>): JsonObject[] {
    return [...this.#skills.values()].filter((s) => this.#mayUse(s, caller)).map((s) => s.entry);
  }

  entry(uri: string, caller: Caller<Scope>): JsonObject | undefined {
    const skill = this.#skills.get(uri);
    return skill !== undefined && this.#mayUse(skill, caller) ? skill.entry : undefined;
  }

  directory(uri: string, caller: Caller<Scope>): readonly JsonObject[] | undefined {
    const skill = this.#directories.get(uri);
    return skill !== undefined && this.#mayUse(skill, caller) ? skill.directories.get(uri) : undefined;
  }

  /** The first answer of this set, then of its sources; a URI the server's filter hides has none. */
  #find<T>(uri: string, caller: Caller<Scope>, ask: (source: SkillSource<Scope>) => T | undefined): T | undefined {
    for (const source of [this, ...this.#sources]) {
      const found = ask(source);
      if (found !== undefined) return source === this || !this.#settings.hidden(uri, caller) ? found : undefined;
    }
    return undefined;
  }

  /** Serves a built skill: its files as resources, its entry in the lists. A URI served twice is refused. */
  add(skill: Skill<Scope>, host: SkillHost<Scope>): void {
    if (this.#skills.has(skill.uri)) throw new Error(`Skill ${skill.uri} is already served`);
    this.#skills.set(skill.uri, skill);
    for (const [uri] of skill.directories) this.#directories.set(uri, skill);
    const { name, description } = skill.frontmatter as { name: string; description: string };
    for (const file of skill.files) {
      const options: ResourceOptions<Scope> = { mimeType: file.mimeType, visible: skill.visible };
      if (file.path === 'SKILL.md') Object.assign(options, { name, description });
      else options.name = file.path;
      if (file.size !== undefined) options.size = file.size;
      const body = file.body;
      host.resource(file.uri, options, typeof body === 'function' ? (_uri, ctx) => body(ctx) : () => body);
    }
  }

  #mayUse(skill: Skill<Scope>, caller: Caller<Scope>): boolean {
    try {
      return (skill.visible === undefined || skill.visible(caller) === true) && !this.#settings.hidden(skill.uri, caller);
    } catch {
      return false; // fail closed, as resources do
    }
  }

  /** The caller's view: with a visibility rule or scopes anywhere, answers are private to the caller. */
  #private(result: JsonObject, ctx: Context<Scope>): JsonObject {
    return revisionOf(ctx.era).caches && this.#settings.personal() ? { ...result, cacheScope: 'private' } : result;
  }

  #list(params: JsonObject, ctx: Context<Scope>): JsonObject {
    const mounted = [...this.#sources].flatMap((source) => source.entries(ctx)).filter((entry) => !this.#settings.hidden(String(entry.uri), ctx));
    const entries = [...this.entries(ctx), ...mounted];
    const { page, nextCursor } = paginate(entries, params.cursor, this.#settings.pageSize);
    return this.#private(nextCursor === undefined ? { skills: page } : { skills: page, nextCursor }, ctx);
  }

  #get(params: JsonObject, ctx: Context<Scope>): JsonObject {
    const uri = params.uri as string;
    const entry = this.#find(uri, ctx, (source) => source.entry(uri, ctx));
    if (entry === undefined) throw invalidParams(`No skill is served at ${uri}`, { uri });
    return this.#private({ skill: entry }, ctx);
  }

  #readDirectory(params: JsonObject, ctx: Context<Scope>): JsonObject {
    const uri = params.uri as string;
    const children = this.#find(uri, ctx, (source) => source.directory(uri, ctx));
    if (children === undefined) throw invalidParams(`${uri} is not a directory resource`, { uri });
    const { page, nextCursor } = paginate(children, params.cursor, this.#settings.pageSize);
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  }
}
