/** Restart delays after a crash: doubling from `first` to `max`, back to `first` once a run lasted `stableMs`. */
export class Backoff {
  #delay: number;

  constructor(
    private readonly first = 250,
    private readonly max = 30_000,
    private readonly stableMs = 30_000,
  ) {
    this.#delay = first;
  }

  /** The delay before the next start, given how long the run that just ended lasted. */
  next(ranMs: number): number {
    if (ranMs >= this.stableMs) this.#delay = this.first;
    const delay = this.#delay;
    this.#delay = Math.min(this.max, this.#delay * 2);
    return delay;
  }
}
