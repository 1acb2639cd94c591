/**
 * One upstream per principal (`perPrincipal`): for stdio servers that keep a user's state (a login, a
 * working directory, an open file), so no caller ever reaches another's. Bounded in count (a caller
 * beyond it, with no idle upstream to stop, gets -32603 naming the bound) and stopped after an idle
 * time. Lists are read from one more upstream that serves no calls.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { type CallHooks, type ConnectionListener, type Upstream, UpstreamUnavailable } from './types.js';

export interface PerPrincipalOptions {
  /** How many principals' upstreams may run at once (default 16). */
  max?: number;
  /** An upstream unused this long is stopped (default 5 min). */
  idleMs?: number;
}

interface Held {
  readonly upstream: Upstream;
  lastUsed: number;
  inFlight: number;
}

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

export class PerPrincipalUpstream implements Upstream {
  readonly #held = new Map<string, Held>();
  readonly #lister: Upstream;
  readonly #max: number;
  readonly #idleMs: number;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly name: string,
    private readonly make: (principal: string) => Upstream,
    options: PerPrincipalOptions = {},
  ) {
    this.#lister = make('');
    this.#max = options.max ?? 16;
    this.#idleMs = options.idleMs ?? 300_000;
  }

  get capabilities(): JsonObject {
    return this.#lister.capabilities;
  }

  /** How many principals have an upstream running now. */
  get running(): number {
    return this.#held.size;
  }

  start(): Promise<void> {
    this.#sweeper ??= setInterval(() => this.#sweep(), Math.max(1_000, Math.min(this.#idleMs, 60_000)));
    this.#sweeper.unref?.();
    return this.#lister.start();
  }

  listen(listener: ConnectionListener): () => void {
    return this.#lister.listen(listener);
  }

  async request(method: string, params: JsonObject, hooks: CallHooks = {}): Promise<JsonObject> {
    if (LISTS.has(method) || hooks.principal === undefined) return this.#lister.request(method, params, hooks);
    const held = await this.#take(hooks.principal);
    try {
      return await held.upstream.request(method, params, hooks);
    } finally {
      held.inFlight--;
      held.lastUsed = Date.now();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const all = [...this.#held.values()].map((h) => h.upstream.close());
    this.#held.clear();
    await Promise.all([...all, this.#lister.close()]);
  }

  /** The principal's upstream, counted as in use (so neither the sweeper nor a newcomer stops it while it starts). */
  async #take(principal: string): Promise<Held> {
    const found = this.#held.get(principal);
    if (found !== undefined) {
      found.inFlight++;
      return found;
    }
    if (this.#held.size >= this.#max && !this.#evictOne()) {
      throw new UpstreamUnavailable(`Upstream ${this.name}: all ${this.#max} per-principal upstreams are busy (perPrincipal.max)`);
    }
    const held: Held = { upstream: this.make(principal), lastUsed: Date.now(), inFlight: 1 };
    this.#held.set(principal, held);
    try {
      await held.upstream.start();
    } catch (error) {
      this.#held.delete(principal);
      await held.upstream.close();
      throw error;
    }
    return held;
  }

  /** Stops the least recently used upstream with nothing in flight; false when every one is busy. */
  #evictOne(): boolean {
    let oldest: [string, Held] | undefined;
    for (const entry of this.#held) if (entry[1].inFlight === 0 && (oldest === undefined || entry[1].lastUsed < oldest[1].lastUsed)) oldest = entry;
    if (oldest === undefined) return false;
    this.#held.delete(oldest[0]);
    void oldest[1].upstream.close();
    return true;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [principal, held] of this.#held) {
      if (held.inFlight > 0 || now - held.lastUsed < this.#idleMs) continue;
      this.#held.delete(principal);
      void held.upstream.close();
    }
  }
}
