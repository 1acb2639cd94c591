/**
 * Newline-delimited JSON from a child's stdout, with a byte bound per line: a longer line is skipped
 * up to its end (and reported once) instead of growing a buffer without limit.
 */
export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversized: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, end), true);
      start = end + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start), false);
  }

  #take(piece: Buffer, ends: boolean): void {
    if (!this.#skipping) {
      this.#size += piece.length;
      if (this.#size > this.maxBytes) {
        this.#skipping = true;
        this.#parts = [];
        this.onOversized();
      } else this.#parts.push(piece);
    }
    if (!ends) return;
    if (!this.#skipping) {
      const line = Buffer.concat(this.#parts).toString('utf8').trim();
      if (line.length > 0) this.onLine(line);
    }
    this.#parts = [];
    this.#size = 0;
    this.#skipping = false;
  }
}
