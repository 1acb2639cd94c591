/**
 * One measured window, shared by the HTTP and stdio load processes: warm-up, then a fixed duration
 * during which completions, latencies, errors and the server's CPU time and memory are recorded.
 */
import { cpuMicros, memoryKb } from '../lib/proc.mjs';

// A server that died has no /proc entry: its numbers become NaN (and its errors tell why). `pid` may
// be a list (a cluster: its members' figures add up).
const pids = (pid) => (Array.isArray(pid) ? pid : [pid]);
const cpuOf = (pid) => {
  try {
    return pids(pid).reduce((sum, p) => sum + cpuMicros(p), 0);
  } catch {
    return NaN;
  }
};
const memOf = (pid) => {
  try {
    return pids(pid).map(memoryKb).reduce((a, b) => ({ rssKb: a.rssKb + b.rssKb, hwmKb: a.hwmKb + b.hwmKb }));
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

  /** `groups` (optional): { name: pid or pids } whose CPU is also reported on its own (cpuUsPerReqBy). */
  constructor(pid, warmupMs, durationMs, groups = {}) {
    this.pid = pid;
    this.groups = groups;
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
        this.groupCpu0 = Object.fromEntries(Object.entries(this.groups).map(([k, p]) => [k, cpuOf(p)]));
        this.client0 = process.cpuUsage();
        this.t0 = performance.now();
        this.measuring = true;
        setTimeout(() => {
          this.measuring = false;
          this.running = false;
          const seconds = (performance.now() - this.t0) / 1000;
          const serverCpu = cpuOf(this.pid) - this.cpu0;
          const groupCpu = Object.fromEntries(Object.entries(this.groups).map(([k, p]) => [k, cpuOf(p) - this.groupCpu0[k]]));
          const client = process.cpuUsage(this.client0);
          const mem = memOf(this.pid);
          resolve({ seconds, serverCpu, groupCpu, clientCpu: client.user + client.system, mem });
        }, this.durationMs);
      }, this.warmupMs);
    });
  }

  report({ seconds, serverCpu, groupCpu = {}, clientCpu, mem }) {
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
      ...(Object.keys(groupCpu).length ? { cpuUsPerReqBy: Object.fromEntries(Object.entries(groupCpu).map(([k, us]) => [k, n ? us / n : NaN])) } : {}),
      peakRssKb: mem.hwmKb,
      rssKb: mem.rssKb,
    };
  }
}
