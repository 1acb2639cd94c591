/**
 * SKILL.md frontmatter: a strict parser for the YAML subset skills use, with no dependency. The
 * entry's `frontmatter` must equal what a host's YAML parser reads from the same file (hosts compare
 * field by field), so anything this parser does not read exactly as YAML 1.2 does is refused with the
 * line, never guessed at: a mapping of keys to scalars (plain, 'single', "double" quoted, `|` and `>`
 * block scalars), one level of nested mapping (`metadata:`) and block lists of scalars. Plain scalars
 * resolve by the YAML 1.2 core schema (null, booleans, integers, floats), as YAML parsers do.
 * Mappings are read into objects without a prototype, and a `__proto__` key is refused with its line:
 * YAML parsers disagree on it, and on a plain object it would set the prototype (through which a
 * required field could seem present).
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

type Scalar = string | number | boolean | null;
type Value = Scalar | Scalar[] | { [key: string]: Scalar | Scalar[] };

export class FrontmatterError extends Error {}

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
}

const fail = (line: number, why: string): never => {
  throw new FrontmatterError(`line ${line}: ${why}`);
};

/** The frontmatter block of a SKILL.md (between the leading `---` lines) and where it starts; undefined without one. */
export function frontmatterBlock(source: string): { yaml: string; firstLine: number } | undefined {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  // The delimiters as hosts find them: `---` alone on the first line, and on a later line of its own.
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return undefined;
  return { yaml: match[1]!, firstLine: 2 };
}

/** Parses the frontmatter's YAML into a JSON object; throws FrontmatterError naming the line. */
export function parseFrontmatter(yaml: string, firstLine = 1): JsonObject {
  const lines: Line[] = [];
  yaml.split(/\r?\n/).forEach((raw, i) => {
    const number = i + firstLine;
    if (/^\s*(#.*)?$/.test(raw)) return; // blank or comment-only lines
    const indent = /^ */.exec(raw)![0].length;
    if (raw[indent] === '\t') fail(number, 'tabs are not allowed for indentation');
    lines.push({ number, indent, text: raw.slice(indent).replace(/\s+$/, '') });
  });
  const raw = yaml.split(/\r?\n/);
  const { value, next } = readMapping(lines, 0, 0, raw, firstLine);
  if (next < lines.length) fail(lines[next]!.number, 'unexpected indentation (a value that goes on over several lines must be a block scalar: `key: >`)');
  return value as JsonObject;
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.\/-]*|"[^"\\]*"|'[^']*'):(?:[ ]+(.*))?$/;

function readMapping(lines: Line[], start: number, indent: number, raw: string[], firstLine: number): { value: Record<string, Value>; next: number } {
  const out: Record<string, Value> = Object.create(null);
  let i = start;
  while (i < lines.length && lines[i]!.indent === indent) {
    const line = lines[i]!;
    const match = KEY.exec(line.text);
    if (!match) fail(line.number, line.text.startsWith('- ') ? 'a list is only allowed as the value of a key' : 'expected `key: value`');
    const key = match![1]!.replace(/^["']|["']$/g, '');
    if (key === '__proto__') fail(line.number, 'the key "__proto__" is refused (it would set the object\'s prototype, and YAML parsers disagree on it)');
    if (Object.hasOwn(out, key)) fail(line.number, `duplicate key "${key}"`);
    const rest = match![2];
    i++;
    if (rest === undefined || rest.startsWith('#')) {
      const child = nested(lines, i, indent, raw, firstLine, line.number);
      out[key] = child.value;
      i = child.next;
    } else if (/^[|>][+-]?$/.test(rest)) {
      const block = blockScalar(rest, raw, line.number - firstLine + 1, indent, firstLine);
      out[key] = block.value;
      while (i < lines.length && lines[i]!.number < block.end + firstLine) i++; // its lines, comments included, are content
    } else {
      out[key] = scalar(rest, line.number);
    }
  }
  return { value: out, next: i };
}

/** The value under `key:` on its own line: a nested mapping, a block list, or null when nothing is indented under it. */
function nested(lines: Line[], i: number, indent: number, raw: string[], firstLine: number, keyLine: number): { value: Value; next: number } {
  const first = lines[i];
  if (first === undefined || first.indent < indent || (first.indent === indent && !first.text.startsWith('- '))) return { value: null, next: i };
  if (first.text === '-' || first.text.startsWith('- ')) {
    const items: Scalar[] = [];
    const at = first.indent;
    while (i < lines.length && lines[i]!.indent === at && (lines[i]!.text === '-' || lines[i]!.text.startsWith('- '))) {
      items.push(lines[i]!.text === '-' ? null : scalar(lines[i]!.text.slice(2).trimStart(), lines[i]!.number));
      i++;
    }
    return { value: items, next: i };
  }
  if (first.indent === indent) fail(first.number, `nothing is indented under the key on line ${keyLine}`);
  if (indent > 0) fail(first.number, 'mappings nest one level at most (as `metadata:` does)');
  const child = readMapping(lines, i, first.indent, raw, firstLine);
  for (const v of Object.values(child.value)) if (v !== null && typeof v === 'object' && !Array.isArray(v)) fail(first.number, 'mappings nest one level at most');
  return { value: child.value as Value, next: child.next };
}

/** A `|` or `>` block scalar whose content starts at `raw[from]`; `end` is the index of the first line after it. */
function blockScalar(header: string, raw: string[], from: number, indent: number, firstLine: number): { value: string; end: number } {
  const body: string[] = [];
  let at = from;
  let contentIndent = -1;
  while (at < raw.length) {
    const line = raw[at]!;
    if (line.trim() === '') {
      body.push('');
      at++;
      continue;
    }
    const lead = /^ */.exec(line)![0].length;
    if (lead <= indent) break;
    if (contentIndent < 0) contentIndent = lead;
    if (lead < contentIndent) fail(at + firstLine, 'a block scalar line is indented less than its first line');
    body.push(line.slice(contentIndent));
    at++;
  }
  while (body.length > 0 && body[body.length - 1] === '' && at > from && raw[at - 1]!.trim() === '') {
    body.pop();
    at--;
  }
  const trailing = raw.slice(at).findIndex((l) => l.trim() !== '');
  const blankAfter = trailing < 0 ? raw.length - at : trailing;
  const text = header[0] === '|' ? body.join('\n') : fold(body);
  const chomp = header[1];
  const value = chomp === '-' ? text : chomp === '+' ? text + '\n'.repeat(blankAfter + 1) : text.length ? `${text}\n` : '';
  return { value, end: at };
}

/** `>`: lines join with a space; an empty line is a newline; more-indented lines keep their breaks. */
function fold(body: string[]): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (i === 0) out = line;
    else if (line === '') out += '\n';
    else if (body[i - 1] === '' || line.startsWith(' ') || body[i - 1]!.startsWith(' ')) out += (body[i - 1] === '' ? '' : '\n') + line;
    else out += ` ${line}`;
  }
  return out;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', ' ': ' ' };

function scalar(text: string, line: number): Scalar {
  if (text.startsWith('"')) {
    const match = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(text);
    if (!match) fail(line, 'an unterminated double-quoted value (it must end on the same line)');
    return match![1]!.replace(/\\(u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|.)/g, (_m, e: string) => {
      if (e.length > 1) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
      const mapped = ESCAPES[e];
      return mapped ?? fail(line, `unknown escape \\${e}`);
    });
  }
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(text);
    if (!match) fail(line, 'an unterminated single-quoted value (it must end on the same line)');
    return match![1]!.replace(/''/g, "'");
  }
  const plain = text.replace(/\s+#.*$/, '');
  if (plain === '[]') return [] as unknown as Scalar;
  if (plain === '{}') return {} as unknown as Scalar;
  if (/^[[{&*!|>%@`]/.test(plain)) fail(line, `"${plain[0]}" starts YAML syntax this parser does not read: quote the value`);
  if (/: |:$/.test(plain)) fail(line, 'a plain value cannot contain ": ": quote the value');
  return resolvePlain(plain);
}

/** The YAML 1.2 core schema: what a YAML parser makes of an unquoted value. */
function resolvePlain(text: string): Scalar {
  if (/^(~|null|Null|NULL|)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return Number(text);
  if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  if (/^[-+]?\.(inf|Inf|INF)$/.test(text) || /^\.(nan|NaN|NAN)$/.test(text)) {
    throw new FrontmatterError(`"${text}" is not representable in JSON: quote the value`);
  }
  return text;
}
