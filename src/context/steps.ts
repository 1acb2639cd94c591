/**
 * `ctx.once(key, fn)`: a side effect that runs once across the rounds of a 2026 MRTR request, where
 * the handler runs again from the top after each `ctx.elicit()`. The round that runs `fn` seals its
 * JSON result into the next signed requestState; a later round carrying that state gets the result
 * back and `fn` does not run. The client carries it; the server keeps nothing. Elsewhere (2025, a
 * request that never asks for input) `fn` simply runs once.
 *
 * The checks (a JSON result, a key used once per request, the bounds) hold in every era, so a handler
 * that passes them in one passes them in the other. A step that throws is not sealed: it runs again
 * in the next round.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { notJson } from './json-value.js';
import type { StepLimits } from '../signing/request-state.js';

export type { StepLimits } from '../signing/request-state.js';

/** A sealed step: `[result]`, or `[]` for a step whose function returned undefined. */
type SealedStep = [] | [unknown];

const encoder = new TextEncoder();
const sizeOf = (key: string, json: string | undefined): number => encoder.encode(key).length + (json === undefined ? 0 : encoder.encode(json).length);

/** The steps of one request round: those sealed by earlier rounds, and those run in this one. */
export class StepLedger {
  /** Sealed earlier, plus run in this round: all of them go into the next requestState. */
  readonly #results = new Map<string, SealedStep>();
  /** Keys asked for in this round (a key may be used once per request). */
  readonly #used = new Set<string>();
  readonly #running = new Set<Promise<unknown>>();
  #bytes = 0;
  /** The round has ended (input_required): a step not yet started waits for the next round. */
  #closed = false;

  constructor(
    sealed: JsonObject | undefined,
    private readonly limits: StepLimits,
  ) {
    for (const key of sealed === undefined ? [] : Object.keys(sealed)) {
      const step = sealed![key];
      if (!Array.isArray(step) || step.length > 1) continue; // signed by this server, so never; but not trusted blindly
      this.#results.set(key, step as SealedStep);
      this.#bytes += sizeOf(key, step.length === 0 ? undefined : JSON.stringify(step[0]));
    }
  }

  /** `ctx.once(key, fn)`: the sealed result of `key`, or `fn`'s, checked and kept for sealing. */
  run<T>(key: string, fn: () => T | PromiseLike<T>): Promise<T> {
    if (typeof key !== 'string' || key === '') return Promise.reject(new TypeError('ctx.once(key, fn) needs a non-empty string key'));
    if (typeof fn !== 'function') return Promise.reject(new TypeError(`ctx.once(${JSON.stringify(key)}, fn) needs a function`));
    if (this.#used.has(key)) {
      return Promise.reject(new TypeError(`ctx.once(${JSON.stringify(key)}) was called twice in one request: give each step its own key`));
    }
    this.#used.add(key);
    const sealed = this.#results.get(key);
    if (sealed !== undefined) return Promise.resolve(sealed[0] as T);
    if (this.#closed) return new Promise<T>(() => {}); // abandoned with the handler: it runs in the next round
    if (this.#results.size + this.#running.size >= this.limits.maxSteps) {
      return Promise.reject(new RangeError(
        `ctx.once(${JSON.stringify(key)}) would be step ${this.limits.maxSteps + 1} of this request; at most ${this.limits.maxSteps} can be sealed (requestState.maxSteps)`,
      ));
    }
    let value: T | PromiseLike<T>;
    try {
      value = fn();
    } catch (error) {
      return Promise.reject(error);
    }
    const running = Promise.resolve(value).then((result) => this.#keep(key, result));
    this.#running.add(running);
    const done = (): void => void this.#running.delete(running);
    running.then(done, done);
    return running;
  }

  /** Checks a step's result and keeps it for sealing; the handler gets the value as later rounds will read it. */
  #keep<T>(key: string, result: T): T {
    const issue = result === undefined ? undefined : notJson(result);
    if (issue !== undefined) {
      throw new TypeError(`ctx.once(${JSON.stringify(key)}) must return a JSON value (or nothing), to seal it into the requestState: ${issue}`);
    }
    const json = result === undefined ? undefined : JSON.stringify(result);
    const bytes = this.#bytes + sizeOf(key, json);
    if (bytes > this.limits.maxStepBytes) {
      throw new RangeError(
        `ctx.once(${JSON.stringify(key)}) ran, but its result would bring the sealed steps to ${bytes} bytes, past ` +
          `${this.limits.maxStepBytes} (requestState.maxStepBytes): return an id and keep the rest in your own store`,
      );
    }
    this.#bytes = bytes;
    const copy = json === undefined ? undefined : (JSON.parse(json) as unknown);
    this.#results.set(key, copy === undefined ? [] : [copy]);
    return copy as T;
  }

  /**
   * The round ended with input_required: no step starts from now on, and the ones running are waited
   * for (settled either way), so their results go into the state instead of running again.
   */
  close(): Promise<unknown> | undefined {
    this.#closed = true;
    return this.#running.size === 0 ? undefined : Promise.allSettled([...this.#running]);
  }

  /** What the next requestState carries: every step result so far; undefined when there is none. */
  sealable(): JsonObject | undefined {
    return this.#results.size === 0 ? undefined : (Object.fromEntries(this.#results) as JsonObject);
  }
}
