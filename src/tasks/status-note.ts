/**
 * A task's `statusMessage` from its handler's progress messages (`ctx.progress(n, total, message)`):
 * at most one store write per poll interval, the latest message winning, so a chatty handler costs
 * the store no more than a polling client can see.
 */
export class StatusNote {
  #writtenAt = 0;
  #pending: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: (message: string) => void,
    private readonly intervalMs: number,
  ) {}

  set(message: string): void {
    const wait = this.#writtenAt + this.intervalMs - Date.now();
    if (wait <= 0 && this.#timer === undefined) return this.#write(message);
    this.#pending = message;
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), Math.max(0, wait));
      this.#timer.unref?.();
    }
  }

  /** The task ended: a message still waiting is dropped (the end is the last word). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  #flush(): void {
    this.#timer = undefined;
    const message = this.#pending;
    this.#pending = undefined;
    if (message !== undefined) this.#write(message);
  }

  #write(message: string): void {
    this.#writtenAt = Date.now();
    this.write(message);
  }
}
