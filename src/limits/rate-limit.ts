/**
 * Per-principal rate limits, the one module every entry uses: the HTTP transport asks before it reads
 * a body (the principal is known from the headers, so a refused request costs almost nothing), and
 * `route()` asks after parsing for messages no transport asked about. Requests per second and request
 * bytes per second, each a token bucket with a burst, kept in `state.rates` (memory, or Redis shared
 * by every instance). Anonymous requests ('') cannot be told apart and are not limited here.
 */
import { ErrorCode } from '../protocol/errors.js';
import { BoundReached, firstTimeReached } from '../state/bounds.js';
import type { RateStore } from '../state/rates.js';
import type { RateLimits } from '../state/token-bucket.js';
import { intOption } from '../option-checks.js';

/** The defaults: generous for any client that talks to a model, a ceiling for one that floods. */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = {
  requestsPerSecond: 200,
  requestBurst: 400,
  requestBytesPerSecond: 1_048_576,
  requestBytesBurst: 8_388_608,
};

/** Past a limit: HTTP 429 with Retry-After at the gate; in-band -32603 when the message was already parsed. */
export class RateLimited extends BoundReached {
  /** The `Retry-After` header's seconds (at least 1). */
  readonly retryAfterSeconds: string;

  constructor(
    principal: string,
    limits: RateLimits,
    /** How long until the request would fit. */
    readonly retryAfterMs: number,
  ) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    super('rateLimit', principal, `Too Many Requests: one client may send ${limits.requestsPerSecond} requests and ${limits.requestBytesPerSecond} request bytes per second (rateLimit), retry in ${seconds} s`, ErrorCode.InternalError, 429);
    this.name = 'RateLimited';
    this.retryAfterSeconds = String(seconds);
  }
}

/** What a check answers: undefined when taken, the refusal, or either later (a shared store). */
export type RateCheck = RateLimited | undefined | Promise<RateLimited | undefined>;

/**
 * Whose budget a request spends: under a verified token, the token's own principal (iss + sub), so a
 * `principal` refinement the client can choose (a tenant header) never buys one token a budget per name;
 * without a token, the request's principal.
 */
export const rateKey = (principal: string, auth: { readonly principal: string } | undefined): string => auth?.principal ?? principal;

/** The `rateLimit` option: the limits of every named principal, and optionally other limits for some. */
export interface RateLimitOptions extends Partial<RateLimits> {
  /**
   * Other limits for one principal (a paid tier, an internal service account): its own values over
   * the ones above, `false` for none, undefined for the ones above. Called once per request: keep it cheap.
   */
  limitsFor?: (principal: string) => Partial<RateLimits> | false | undefined;
}

export class RateLimiter {
  /** A failing store lets requests through and is reported here (the server's log): a rate limit must not take the server down with its store. */
  report: (error: unknown) => void = () => {};
  /** `limitsFor`'s answers, checked once per object it returns. */
  readonly #checked = new WeakMap<object, RateLimits>();

  constructor(
    readonly limits: RateLimits,
    private readonly store: RateStore,
    private readonly limitsFor?: RateLimitOptions['limitsFor'],
  ) {}

  /** Takes one request of `bytes` (its declared length; 0 when unknown) from `principal`'s buckets. */
  check(principal: string, bytes: number): RateCheck {
    const limits = this.#limitsOf(principal);
    if (limits === undefined) return undefined;
    let wait: number | Promise<number>;
    try {
      wait = this.store.take(principal, limits, 1, bytes);
    } catch (error) {
      this.report(error);
      return undefined;
    }
    if (typeof wait === 'number') return this.#verdict(principal, limits, wait);
    return wait.then((ms) => this.#verdict(principal, limits, ms), (error: unknown) => {
      this.report(error);
      return undefined;
    });
  }

  /** Counts the bytes of a body whose length was not declared, once read: never refused, the next requests wait. */
  charge(principal: string, bytes: number): void {
    const limits = bytes === 0 ? undefined : this.#limitsOf(principal);
    if (limits === undefined) return;
    try {
      const taken = this.store.take(principal, limits, 0, bytes, true);
      if (typeof taken !== 'number') taken.catch((error: unknown) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }

  /** The principal's limits; undefined: not limited (anonymous, or `limitsFor` said false). */
  #limitsOf(principal: string): RateLimits | undefined {
    if (principal === '') return undefined;
    const own = this.limitsFor?.(principal);
    if (own === undefined) return this.limits;
    if (own === false) return undefined;
    let limits = this.#checked.get(own);
    if (limits === undefined) this.#checked.set(own, (limits = rateLimits({ ...this.limits, ...own })!));
    return limits;
  }

  #verdict(principal: string, limits: RateLimits, wait: number): RateLimited | undefined {
    if (wait === 0) return undefined;
    const refusal = new RateLimited(principal, limits, wait);
    if (firstTimeReached(this, refusal)) this.report(refusal); // logged once per principal
    return refusal;
  }
}

/** The `rateLimit` option's limits: false turns them off; otherwise each value over its default. */
export function rateLimits(option: Partial<RateLimits> | false | undefined): RateLimits | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'object' || option === null)) throw new TypeError('MiniMCP option rateLimit must be an object or false');
  const given = option ?? {};
  const limits = {} as RateLimits;
  for (const name of Object.keys(DEFAULT_RATE_LIMITS) as (keyof RateLimits)[]) limits[name] = intOption(given, name, DEFAULT_RATE_LIMITS[name], { owner: 'MiniMCP option' });
  return limits;
}
