/** Reads a process's CPU time and memory from /proc (Linux), and describes the machine. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

let tickUs = 10_000;
try {
  tickUs = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
} catch {
  // getconf missing: Linux's usual 100 Hz
}

/** utime + stime of all the process's threads, in µs (clock-tick resolution, usually 10 ms). */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name "(...)", which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * tickUs; // fields 14 and 15 of stat(5)
}

/** { rssKb, hwmKb }: current and peak resident set size. */
export function memoryKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

export function machine() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {
    // not Linux
  }
  let nproc = cpus().length;
  try {
    nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  } catch {
    // no coreutils
  }
  let load = '';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    // not Linux
  }
  return { nproc, cpu: model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadavg: load };
}
