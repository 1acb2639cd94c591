/**
 * An ordered name -> entry map that tells the server when it changes (for list_changed) and keeps the
 * published definitions as one array until the next change, so listing costs nothing.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

export class Registry<E extends { readonly definition: JsonObject }> {
  readonly #items = new Map<string, E>();
  #entries: E[] | undefined;
  #definitions: JsonObject[] | undefined;

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.#items.size;
  }

  get(key: string): E | undefined {
    return this.#items.get(key);
  }

  /** Registers (or replaces) an entry; returns a function that removes exactly this entry. */
  add(key: string, entry: E): () => boolean {
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

  /** The wire definitions in registration order. */
  list(): readonly JsonObject[] {
    return (this.#definitions ??= this.values().map((e) => e.definition));
  }

  #changed(): void {
    this.#entries = undefined;
    this.#definitions = undefined;
    this.onChange();
  }
}
