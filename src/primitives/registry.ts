/** An ordered name -> entry map that tells the server when it changes (for list_changed). */
export class Registry<E> {
  readonly #items = new Map<string, E>();
  #snapshot: E[] | undefined;

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.#items.size;
  }

  get(key: string): E | undefined {
    return this.#items.get(key);
  }

  has(key: string): boolean {
    return this.#items.has(key);
  }

  set(key: string, entry: E): void {
    this.#items.set(key, entry);
    this.#snapshot = undefined;
    this.onChange();
  }

  delete(key: string): boolean {
    if (!this.#items.delete(key)) return false;
    this.#snapshot = undefined;
    this.onChange();
    return true;
  }

  /** Entries in registration order; the same array until the next change, so lists cost nothing. */
  values(): readonly E[] {
    return (this.#snapshot ??= [...this.#items.values()]);
  }
}
