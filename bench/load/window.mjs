/**
 * One measured window, shared by the HTTP and stdio load processes: warm-up, then a fixed duration
 * during which completions, latencies, errors and the server's CPU time and memory are recorded.
 */
import { cpuMicros, memoryKb } from '../lib/proc.mjs';

// A server that died has no /proc entry: its numbers become NaN (and its errors tell why).
const cpuOf = (pid) => {
  try {
    return cpuMicros(pid);
  } catch {
    return NaN;
  }
};
const memOf = (pid) => {
  try {
    return memoryKb(pid);
  } catch {
    return { rssKb: NaN, hwmKb: NaN };
  }
};
import { Recorder } from '../lib/stats.mjs';

export class Window {
  measuring = false;
  running = true;
  warmupErrors = 0;
  errors = 0;
  completed = 0;
  samples = new Set(); // a few distinct error messages, for the report
  latencies = new Recorder();

  constructor(pid, warmupMs, durationMs) {
    this.pid = pid;
    this.warmupMs = warmupMs;
    this.durationMs = durationMs;
  }

  ok(ms) {
    if (!this.measuring) return;
    this.completed++;
    this.latencies.add(ms);
  }

  error(message) {
    if (this.measuring) this.errors++;
    else if (this.running) this.warmupErrors++;
    if (this.samples.size < 3) this.samples.add(message);
  }

  /** Runs warm-up and the window; resolves when the window closed (load must stop then). */
  run() {
    return new Promise((resolve) => {
      setTimeout(() => {
        this.cpu0 = cpuOf(this.pid);
        this.client0 = process.cpuUsage();
        this.t0 = performance.now();
        this.measuring = true;
        setTimeout(() => {
          this.measuring = false;
          this.running = false;
          const seconds = (performance.now() - this.t0) / 1000;
          const serverCpu = cpuOf(this.pid) - this.cpu0;
          const client = process.cpuUsage(this.client0);
          const mem = memOf(this.pid);
          resolve({ seconds, serverCpu, clientCpu: client.user + client.system, mem });
        }, this.durationMs);
      }, this.warmupMs);
    });
  }

  report({ seconds, serverCpu, clientCpu, mem }) {
    const { p50, p99 } = this.latencies.summary();
    const n = this.completed;
    return {
      completed: n,
      rps: n / seconds,
      p50Ms: p50,
      p99Ms: p99,
      errors: this.errors + this.warmupErrors,
      errorSamples: [...this.samples],
      cpuUsPerReq: n ? serverCpu / n : NaN,
      serverCpuPct: (serverCpu / 1e4) / seconds,
      clientCpuUsPerReq: n ? clientCpu / n : NaN,
      // Near 100 %, the load process (not the server) may be the limit.
      clientCpuPct: clientCpu / 1e4 / seconds,
      peakRssKb: mem.hwmKb,
      rssKb: mem.rssKb,
    };
  }
}
