/**
 * Verified tokens, so a token seen again costs a map lookup instead of a signature check. Bounded in
 * count (the oldest entry leaves first) and each entry leaves at its token's expiry or after `ttlMs`,
 * whichever comes first: a cached answer is never used past `exp`. Only tokens that passed
 * verification enter, so a client cannot fill it with junk; token length is bounded by the verifier.
 */
import type { AuthInfo } from '../protocol/auth-info.js';

interface Entry {
  readonly auth: AuthInfo;
  /** ms since the epoch after which the entry is not used. */
  readonly until: number;
}

export class TokenCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  get(token: string, now: number): AuthInfo | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.auth;
    this.#entries.delete(token);
    return undefined;
  }

  set(token: string, auth: AuthInfo, now: number): void {
    if (this.maxEntries === 0) return;
    const until = Math.min(auth.expiresAt ?? Number.POSITIVE_INFINITY, now + this.ttlMs);
    if (until <= now) return;
    const entries = this.#entries;
    entries.delete(token);
    while (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value!);
    entries.set(token, { auth, until });
  }
}
