/**
 * An ordered name -> entry map that tells the server when it changes (for list_changed) and keeps the
 * published definitions as one array until the next change, so listing costs nothing. It also applies
 * per-caller visibility; with no rule set, a caller's list is that same shared array.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { InsufficientScopeError } from '../protocol/errors.js';
import { Visibility, type Caller, type Filterable } from './visibility.js';

const KIND_NAMES: Record<Filterable<unknown>['kind'], string> = { tool: 'Tool', prompt: 'Prompt', resource: 'Resource', resourceTemplate: 'Resource template' };

export class Registry<E extends Filterable<Scope>, Scope = unknown> {
  readonly #items = new Map<string, E>();
  #entries: E[] | undefined;
  #definitions: JsonObject[] | undefined;
  #personal: boolean | undefined;

  constructor(
    private readonly onChange: () => void,
    // Own rules still apply without a server's filter (a registry built on its own, in tests).
    private readonly visibility: Visibility<Scope> = new Visibility<Scope>(undefined, () => {}),
  ) {}

  get size(): number {
    return this.#items.size;
  }

  get(key: string): E | undefined {
    return this.#items.get(key);
  }

  /** True when a rule (the entry's own or the server's filter) may hide entries from some callers. */
  get personal(): boolean {
    const visibility = this.visibility;
    return (this.#personal ??= visibility.filter !== undefined || visibility.scoped ||
      this.values().some((e) => e.visible !== undefined || e.scopes !== undefined));
  }

  /**
   * The entry under `key` if this caller may see it: an entry it may not see is not there. One it
   * may see but whose scopes its token lacks throws InsufficientScopeError (403, step-up).
   */
  find(key: string, caller: Caller<Scope>): E | undefined {
    const entry = this.#items.get(key);
    return entry === undefined || this.usable(entry, caller) ? entry : undefined;
  }

  /** Whether the caller may use the entry: false when hidden by a rule, InsufficientScopeError when its token lacks the scopes. */
  usable(entry: E, caller: Caller<Scope>): boolean {
    if (!this.personal) return true;
    if (!this.visibility.rulesAllow(entry, caller)) return false;
    const missing = this.visibility.missing(entry, caller);
    if (missing !== undefined) throw new InsufficientScopeError(missing);
    return true;
  }

  /** Whether an entry is registered under `key`, whoever may see it. */
  has(key: string): boolean {
    return this.#items.has(key);
  }

  /** Whether this caller may see the entry. */
  allows(entry: E, caller: Caller<Scope>): boolean {
    return !this.personal || this.visibility.allows(entry, caller);
  }

  /**
   * Registers an entry; returns a function that removes exactly this entry. A key taken already is
   * refused unless `replace` says so: a second registration under one name silently replacing the
   * first was a bug in the user's code far more often than an intent.
   */
  add(key: string, entry: E, replace = false): () => boolean {
    if (!replace && this.#items.has(key)) {
      throw new Error(`${KIND_NAMES[entry.kind]} ${JSON.stringify(entry.id)} is already registered: pass { replace: true } to replace it, or remove it first`);
    }
    this.#items.set(key, entry);
    this.#changed();
    return () => this.#items.get(key) === entry && this.remove(key);
  }

  remove(key: string): boolean {
    if (!this.#items.delete(key)) return false;
    this.#changed();
    return true;
  }

  /** Entries in registration order. */
  values(): readonly E[] {
    return (this.#entries ??= [...this.#items.values()]);
  }

  /** The entries this caller may see, in registration order (the shared array when no rule is set). */
  visibleTo(caller: Caller<Scope>): readonly E[] {
    return this.personal ? this.values().filter((e) => this.visibility.allows(e, caller)) : this.values();
  }

  /** The wire definitions in registration order. */
  list(): readonly JsonObject[] {
    return (this.#definitions ??= this.values().map((e) => e.definition));
  }

  /** The wire definitions this caller may see (the shared array when no rule is set). */
  listFor(caller: Caller<Scope>): readonly JsonObject[] {
    return this.personal ? this.visibleTo(caller).map((e) => e.definition) : this.list();
  }

  #changed(): void {
    this.#entries = undefined;
    this.#definitions = undefined;
    this.#personal = undefined;
    this.onChange();
  }
}
