/**
 * A hand-written SVG chart (no dependencies): four panels of horizontal bars for the noop workload
 * at c=64 (or the highest concurrency measured): requests/s and server CPU µs per request, over
 * HTTP and over stdio. MiniMCP bars are blue, the floor grey, the peers orange.
 */

const COLORS = { minimcp: '#2563eb', floor: '#9ca3af', peer: '#f59e0b' };
const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
const num = (v) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));

function panel(x, y, width, title, rows, key) {
  const barH = 18;
  const gap = 6;
  const labelW = 150;
  const valueW = 70;
  const usable = width - labelW - valueW;
  const max = Math.max(...rows.map((r) => r[key]).filter(Number.isFinite), 1);
  const parts = [`<text x="${x}" y="${y}" class="title">${esc(title)}</text>`];
  rows.forEach((r, i) => {
    const top = y + 12 + i * (barH + gap);
    const v = r[key];
    const w = Number.isFinite(v) ? Math.max(1, (v / max) * usable) : 0;
    parts.push(
      `<text x="${x + labelW - 8}" y="${top + 13}" class="label">${esc(r.target)}</text>`,
      `<rect x="${x + labelW}" y="${top}" width="${w.toFixed(1)}" height="${barH}" fill="${COLORS[r.role] ?? '#6b7280'}" rx="2"/>`,
      `<text x="${x + labelW + w + 6}" y="${top + 13}" class="value">${Number.isFinite(v) ? num(v) : 'n/a'}${r.errors ? ' (errors!)' : ''}</text>`,
    );
  });
  return { svg: parts.join('\n'), height: 12 + rows.length * (barH + gap) };
}

export function renderSvg(results) {
  const width = 960;
  const colW = width / 2 - 30;
  const pickC = (transport) => {
    const cs = results.cells.filter((r) => r.transport === transport && r.workload === 'noop').map((r) => r.concurrency);
    return cs.includes(64) ? 64 : Math.max(...cs);
  };
  const blocks = [];
  let y = 80;
  for (const transport of ['http', 'stdio']) {
    const c = pickC(transport);
    const rows = results.cells.filter((r) => r.transport === transport && r.workload === 'noop' && r.concurrency === c);
    if (!rows.length) continue;
    const label = transport === 'http' ? 'HTTP' : 'stdio';
    const left = panel(20, y, colW, `${label} noop c=${c}: requests/s (higher is better)`, rows, 'rps');
    const right = panel(width / 2 + 10, y, colW, `${label} noop c=${c}: server CPU µs/request (lower is better)`, rows, 'cpuUsPerReq');
    blocks.push(left.svg, right.svg);
    y += Math.max(left.height, right.height) + 40;
  }
  const m = results.machine;
  const sub = `${results.date.slice(0, 16).replace('T', ' ')} UTC · ${m.cpu} · ${m.nproc} CPUs · Node ${m.node}${results.options.mode !== 'full' ? ` · ${String(results.options.mode ?? 'quick').toUpperCase()} RUN` : ''}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="system-ui, sans-serif">
<style>.title{font-size:14px;font-weight:600;fill:#111827}.label{font-size:12px;text-anchor:end;fill:#374151}.value{font-size:11px;fill:#374151}.h{font-size:18px;font-weight:700;fill:#111827}.sub{font-size:12px;fill:#6b7280}</style>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="20" y="26" class="h">MiniMCP benchmark: tools/call "noop"</text>
<text x="20" y="44" class="sub">${esc(sub)}</text>
${blocks.join('\n')}
</svg>
`;
}
