/** The code frame of a load error: the first position in the user's own files, with two lines around it. */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LoadError {
  message: string;
  /** "file:line:column" of the failing spot, when one was found in the user's files. */
  location?: string;
  /** A few source lines with a marker and a caret, ready to print. */
  frame?: string;
}

// Matches "/abs/path.ts:12:5" and "file:///abs/path.ts:12:5" in messages and stacks.
const POSITION = /(file:\/\/\/?[^\s:()'"]+|\/[^\s:()'"]+):(\d+):(\d+)/g;
/** minimcp dev's own folder (src/dev, or dist/dev once bundled): its frames are never the user's. */
const OWN = dirname(fileURLToPath(import.meta.url));

export function describeLoadError(error: unknown): LoadError {
  const err = error as { message?: unknown; stack?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : String(error);
  const text = `${message}\n${typeof err?.stack === 'string' ? err.stack : ''}`;
  for (const match of text.matchAll(POSITION)) {
    const [, where, line, column] = match;
    const file = where!.startsWith('file:') ? safePath(where!) : where!;
    if (file === undefined || file.includes('/node_modules/') || dirname(file) === OWN) continue;
    const frame = codeFrame(file, Number(line), Number(column));
    if (frame === undefined) continue;
    return { message, location: `${file}:${line}:${column}`, frame };
  }
  return { message };
}

function safePath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

export function codeFrame(file: string, line: number, column: number): string | undefined {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const lines = source.split(/\r?\n/);
  if (line < 1 || line > lines.length) return undefined;
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 2);
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1]}`);
    if (n === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`);
  }
  return out.join('\n');
}
