/** The markdown report and the target ratios (MiniMCP against the floor and the peers). */
import { HTTP_TARGETS } from '../targets.mjs';

const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : '-');
const mb = (kb) => fmt(kb / 1024, 1);
const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');

const cell = (results, transport, target, workload, c) =>
  results.cells.find((r) => r.transport === transport && r.target === target && r.workload === workload && r.concurrency === c);

/** Named ratios; each is MiniMCP / reference, so below 1 means less (CPU, latency, memory, time) and above 1 more (req/s). */
export function targetRatios(results) {
  const get = (transport, target, workload, c, key) => cell(results, transport, target, workload, c)?.[key];
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN);
  const peakAt = (transport, target, c) => Math.max(...results.cells.filter((r) => r.transport === transport && r.target === target && r.concurrency === c).map((r) => r.peakRssKb).filter(Number.isFinite));
  const cold = (name) => results.cold.find((r) => r.target === name)?.ms;
  const stdioPeers = results.cells.filter((r) => r.transport === 'stdio' && r.role === 'peer' && r.workload === 'noop' && r.concurrency === 64 && Number.isFinite(r.cpuUsPerReq));
  const bestPeer = stdioPeers.sort((a, b) => a.cpuUsPerReq - b.cpuUsPerReq)[0];
  const size = (name) => results.sizes.find((s) => s.name === name)?.totalBytes;
  const rows = [];
  for (const mode of ['minimcp-json', 'minimcp-streamable']) {
    rows.push(
      { name: `HTTP noop c=64 CPU/request, ${mode} vs floor`, value: ratio(get('http', mode, 'noop', 64, 'cpuUsPerReq'), get('http', 'floor-http', 'noop', 64, 'cpuUsPerReq')) },
      { name: `HTTP noop c=64 req/s, ${mode} vs floor`, value: ratio(get('http', mode, 'noop', 64, 'rps'), get('http', 'floor-http', 'noop', 64, 'rps')) },
      { name: `HTTP noop c=64 p99, ${mode} vs floor`, value: ratio(get('http', mode, 'noop', 64, 'p99Ms'), get('http', 'floor-http', 'noop', 64, 'p99Ms')) },
      { name: `HTTP io c=256 req/s, ${mode} vs floor`, value: ratio(get('http', mode, 'io', 256, 'rps'), get('http', 'floor-http', 'io', 256, 'rps')) },
    );
  }
  const sseCpu = get('http', 'minimcp-sse', 'noop', 64, 'cpuUsPerReq');
  rows.push(
    { name: 'HTTP SSE (progress, then result) noop c=64 CPU/request, minimcp-sse vs floor-sse', value: ratio(sseCpu, get('http', 'floor-sse', 'noop', 64, 'cpuUsPerReq')) },
    { name: 'HTTP SSE noop c=64 CPU/request, minimcp-sse vs floor-http (a JSON answer, no progress)', value: ratio(sseCpu, get('http', 'floor-http', 'noop', 64, 'cpuUsPerReq')) },
  );
  const stdioCpu = get('stdio', 'minimcp-stdio', 'noop', 64, 'cpuUsPerReq');
  rows.push(
    { name: 'stdio noop c=64 CPU/request, MiniMCP vs floor', value: ratio(stdioCpu, get('stdio', 'floor-stdio', 'noop', 64, 'cpuUsPerReq')) },
    { name: `stdio noop c=64 CPU/request, MiniMCP vs best peer (${bestPeer?.target ?? 'none'})`, value: ratio(stdioCpu, bestPeer?.cpuUsPerReq) },
    { name: 'peak RSS at c=256 (max over workloads), minimcp-json vs floor', value: ratio(peakAt('http', 'minimcp-json', 256), peakAt('http', 'floor-http', 256)) },
    { name: 'cold start, minimcp-json vs floor-http', value: ratio(cold('minimcp-json'), cold('floor-http')) },
    { name: 'cold start, minimcp-stdio vs floor-stdio', value: ratio(cold('minimcp-stdio'), cold('floor-stdio')) },
    { name: 'installed size with prod deps, minimcp vs @modelcontextprotocol/server', value: ratio(size('minimcp'), size('@modelcontextprotocol/server')) },
  );
  return rows;
}

function cellTable(results, transport, workload) {
  const rows = results.cells.filter((r) => r.transport === transport && r.workload === workload);
  if (!rows.length) return '';
  const floorName = transport === 'http' ? 'floor-http' : 'floor-stdio';
  // A target with a floor of its own (minimcp-sse: floor-sse) is compared with it.
  const floorOf = (target) => HTTP_TARGETS.find((t) => t.name === target)?.floor ?? floorName;
  const lines = [
    `### ${transport === 'http' ? 'HTTP' : 'stdio'} · ${workload}`,
    '',
    '| c | server | req/s | × floor | p50 ms | p99 ms | CPU µs/req | × floor | peak RSS MB | errors |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const cs = [...new Set(rows.map((r) => r.concurrency))].sort((a, b) => a - b);
  for (const c of cs) {
    for (const r of rows.filter((row) => row.concurrency === c)) {
      const floor = cell(results, transport, transport === 'http' ? floorOf(r.target) : floorName, workload, c);
      const name = r.role === 'minimcp' ? `**${r.target}**` : r.target;
      const errors = r.errors || r.failed ? `**${r.errors ?? 'failed'}**` : '0';
      const busy = r.clientCpuPct > 90 ? ' †' : ''; // the load process was near one full core
      lines.push(
        `| ${c} | ${name} | ${fmt(r.rps)}${busy} | ${x(r.rps / floor?.rps)} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ${fmt(r.cpuUsPerReq, 1)} | ${x(r.cpuUsPerReq / floor?.cpuUsPerReq)} | ${mb(r.peakRssKb)} | ${errors} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

const FOOTNOTE = '† the load process used over 90 % of its CPU in that cell: the figure may be capped by the load generator, not the server.';

export function renderMarkdown(results) {
  const m = results.machine;
  const o = results.options;
  const out = [
    '# MiniMCP benchmark results',
    '',
    `${results.date} · ${m.cpu} · nproc ${m.nproc} · ${m.memGiB} GiB · Node ${m.node} · load average at start ${m.loadavg}`,
    '',
    `Mode: ${o.mode === 'full' ? 'full' : `**${o.mode}** (indicative only)`} · warm-up ${o.warmupMs} ms, window ${o.durationMs} ms per cell · ${o.rounds} round(s) · ` +
      `${o.pin ? 'server pinned to CPU 1, load process to CPU 0' : 'no CPU pinning'} · took ${results.elapsedSeconds} s`,
    '',
    `Versions: ${Object.entries(results.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    '',
    'See docs/benchmarks.md for what each column means. MiniMCP rows are bold; "× floor" is the ratio to the bare floor server at the same cell (for minimcp-sse: floor-sse, the same answer as a bare event stream).',
    '',
    '## Target ratios',
    '',
    '| ratio (MiniMCP / reference) | value |',
    '|---|---:|',
    ...results.ratios.map((r) => `| ${r.name} | ${x(r.value)} |`),
    '',
    '## Cold start (spawn to first correct tools/call answer, median)',
    '',
    '| server | cold start ms | RSS after start MB | failures |',
    '|---|---:|---:|---:|',
    ...results.cold.map((r) => `| ${r.target} | ${fmt(r.ms, 1)} | ${mb(r.rssKb)} | ${r.failures} |`),
    '',
    '## Installed size (file bytes, production dependencies included)',
    '',
    '| package | own KB | deps | deps KB | total KB |',
    '|---|---:|---:|---:|---:|',
    ...results.sizes.map((s) => `| ${s.name}${s.name === 'minimcp' ? ' (npm pack)' : ''} | ${fmt(s.ownBytes / 1024)} | ${s.depCount} | ${fmt(s.depBytes / 1024)} | ${fmt(s.totalBytes / 1024)} |`),
    '',
    '## Throughput, latency, CPU and memory',
    '',
  ];
  for (const transport of ['http', 'stdio']) for (const w of ['noop', 'compute', 'io']) out.push(cellTable(results, transport, w));
  if (results.cells.some((r) => r.clientCpuPct > 90)) out.push(FOOTNOTE, '');
  const failing = results.cells.filter((r) => r.errors || r.failed);
  if (failing.length) {
    out.push('## Errors', '', ...failing.map((r) => `- ${r.transport} ${r.target} ${r.workload} c=${r.concurrency}: ${r.errorSamples.join(' | ')}`), '');
  }
  return `${out.join('\n')}\n`;
}
