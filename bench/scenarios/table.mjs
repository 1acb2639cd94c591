/** Small helpers the scenarios share: a markdown table, a safe ratio, a rotated order. */

export const tableOf = (head, rows) =>
  `| ${head.join(' | ')} |\n|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`;

export const ratioOf = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN);

/** The list started at index `i` (mod length): no server always runs right after the same neighbour. */
export const rotate = (list, i) => {
  const shift = list.length ? i % list.length : 0;
  return [...list.slice(shift), ...list.slice(0, shift)];
};
