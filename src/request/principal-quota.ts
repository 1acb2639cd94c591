/**
 * Per-principal quotas of long-lived things. The principal is the server's `principalOf(scope)`:
 * the `principal` option, else the scope's own `principal` string; '' is anonymous.
 */
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
