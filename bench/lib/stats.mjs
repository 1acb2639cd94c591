/** Small statistics helpers. */

/** The q-quantile (0..1) of an already sorted array, nearest rank. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** Latencies (ms) recorded into a growable Float64Array, cheap on the hot path. */
export class Recorder {
  #data = new Float64Array(1 << 16);
  #n = 0;
  add(ms) {
    if (this.#n === this.#data.length) {
      const bigger = new Float64Array(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.#n++] = ms;
  }
  get count() {
    return this.#n;
  }
  summary() {
    const sorted = this.#data.slice(0, this.#n).sort();
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted[this.#n - 1] ?? NaN };
  }
}
