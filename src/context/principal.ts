/**
 * Who is asking. The framework binds per-client state to a principal: MRTR `requestState`, and the
 * per-principal quotas of listen streams and resumable streams. It learns the principal from the
 * scope, in one way: the `principal` option of MiniMCP, a function of the scope; without it, the
 * scope's own `principal` property when that is a string. '' means anonymous: nothing is bound, and
 * only the server-wide limits apply (anonymous clients cannot be told apart).
 */
export type PrincipalOf<Scope> = (scope: Scope | undefined) => string | undefined;

export function principalFrom<Scope>(scope: Scope | undefined, option: PrincipalOf<Scope> | undefined): string {
  if (option !== undefined) {
    const named = option(scope);
    return typeof named === 'string' ? named : '';
  }
  if (typeof scope !== 'object' || scope === null) return '';
  const own = (scope as { principal?: unknown }).principal;
  return typeof own === 'string' ? own : '';
}

/**
 * Places for long-lived streams: at most `max` in all and `perPrincipal` for any one named principal,
 * so one client cannot take them all. Anonymous streams count only against the total.
 */
export class PrincipalQuota {
  #open = 0;
  readonly #held = new Map<string, number>();

  constructor(
    readonly max: number,
    readonly perPrincipal: number,
  ) {}

  get open(): number {
    return this.#open;
  }

  /** Takes a place, or answers false when the total or the principal's share is used up. */
  acquire(principal: string): boolean {
    if (this.#open >= this.max) return false;
    if (principal !== '') {
      const held = this.#held.get(principal) ?? 0;
      if (held >= this.perPrincipal) return false;
      this.#held.set(principal, held + 1);
    }
    this.#open++;
    return true;
  }

  release(principal: string): void {
    this.#open--;
    if (principal === '') return;
    const held = (this.#held.get(principal) ?? 1) - 1;
    if (held > 0) this.#held.set(principal, held);
    else this.#held.delete(principal);
  }
}
