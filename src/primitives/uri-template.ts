/**
 * RFC 6570 URI templates for MCP resource templates. The server gets a concrete
 * URI and has to find the registered template it belongs to, so matching (the
 * reverse of expansion) is the main job here; `expand` is the RFC algorithm.
 *
 * Matching never builds a RegExp from a template: URIs come from clients, and a
 * backtracking regex such as /^(.+)(.+)x$/ is quadratic or worse on hostile input.
 * Instead a template is a chain of "expression, then literal" segments and a
 * small dynamic program decides, right to left, from which offsets the rest of
 * the chain can still match. The left-to-right pass that extracts values then
 * never backtracks. Cost: O(uri length × segments) time, and one Int32Array of
 * the URI's length per segment.
 */

export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[]; // names in order of appearance
  /** Variables extracted (percent-decoded) when `uri` matches, else undefined. */
  match(uri: string): Record<string, string | string[]> | undefined;
  /** Expand with values (percent-encoding as RFC 6570 says for each operator). */
  expand(values: Record<string, string | number | boolean | readonly string[] | undefined>): string;
  /** Higher = more specific: used to pick the most specific template when several match. */
  readonly specificity: number;
}

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface OperatorInfo {
  readonly first: string; // emitted before the first defined variable
  readonly sep: string; // between variables and between exploded list items
  readonly named: boolean; // emits name=value pairs
  readonly ifEmpty: string; // after the name when the value is empty
  readonly reserved: boolean; // reserved characters pass through unencoded
}

// RFC 6570 Appendix A table.
const OPERATORS: Record<Operator, OperatorInfo> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly maxLength: number | undefined; // prefix modifier {x:3}
}

interface Expression {
  readonly op: Operator;
  readonly vars: readonly VarSpec[];
}

/** One expression (adjacent `{?a}{&b}` merged) and the literal that follows it, for matching. */
interface Segment {
  readonly op: OperatorInfo;
  readonly vars: VarSpec[];
  /** Operators with a leading character expand to '' when all variables are undefined. */
  readonly optional: boolean;
  /** stops[c] === 1 for ASCII characters the expression's text cannot contain. */
  readonly stops: Uint8Array;
  literal: string; // canonical form
}

type TemplateValues = Parameters<UriTemplate['expand']>[0];

const UNSUPPORTED_OPERATORS = '=,!@|'; // reserved by RFC 6570 section 2.2 for future use

export function parseUriTemplate(template: string): UriTemplate {
  return new ParsedTemplate(template);
}

class ParsedTemplate implements UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  readonly specificity: number;
  readonly #parts: readonly (string | Expression)[];
  readonly #head: string; // canonical literal before the first expression
  readonly #segments: readonly Segment[];

  constructor(template: string) {
    this.template = template;
    this.#parts = parseParts(template);
    const expressions = this.#parts.filter((p): p is Expression => typeof p !== 'string');
    // A name may appear more than once (RFC 6570 has `{/var:1,var}`); list it once.
    const names = new Set(expressions.flatMap((e) => e.vars.map((v) => v.name)));
    this.variables = Object.freeze([...names]);

    // Literals get the canonical form URIs get in match(). The host is lowercased
    // even when variables cut it up (`x://{tenant}.Example.com/`), until a '/', '?'
    // or '#', or an expression that may produce one, ends it.
    let head = '';
    let inHost = false;
    const segments: Segment[] = [];
    for (const part of this.#parts) {
      const last = segments[segments.length - 1];
      if (typeof part === 'string') {
        if (!last) {
          head = canonicalUri(part);
          const authority = authorityRange(head);
          inHost = authority !== undefined && authority[1] === head.length;
          continue;
        }
        let literal = normalizePercent(part);
        if (inHost) {
          const end = literal.search(/[/?#]/);
          const cut = end < 0 ? literal.length : end;
          literal = lowerHost(literal.slice(0, cut)) + literal.slice(cut);
          inHost = end < 0;
        }
        last.literal = literal;
        continue;
      }
      if (part.op !== '' && part.op !== '.') inHost = false;
      if (part.op === '&' && last && last.literal === '' && last.op.named && last.op.sep === '&') {
        // `{?a}{&b}` is one query: merged, its parameters may come in any order.
        last.vars.push(...part.vars);
      } else {
        segments.push(toSegment(part));
      }
    }
    this.#head = head;
    this.#segments = segments;

    // Literal characters dominate; between equal literals a variable with a
    // restricted character set ({x}, {/x}, {?x}) beats one that takes anything ({+x}, {#x}).
    const literalChars = segments.reduce((n, s) => n + s.literal.length, head.length);
    const restricted = expressions.filter((e) => !OPERATORS[e.op].reserved).length;
    this.specificity = literalChars * 16 + Math.min(restricted, 15);
  }

  match(uri: string): Record<string, string | string[]> | undefined {
    const s = canonicalUri(uri);
    const head = this.#head;
    const segments = this.#segments;
    if (!s.startsWith(head)) return undefined;
    if (segments.length === 0) return s.length === head.length ? {} : undefined;
    if (!s.endsWith(segments[segments.length - 1]!.literal)) return undefined; // cheap early reject
    const runs = findRuns(s, head.length, segments);
    if (!runs) return undefined;

    const result: Record<string, string | string[]> = {};
    const setBy = new Map<string, VarSpec>();
    for (let k = 0; k < segments.length; k++) {
      const run = runs[k];
      if (!run) continue;
      const found = extract(s.slice(run[0], run[1]), segments[k]!);
      if (!found) return undefined;
      for (const [v, value] of found) if (!assign(result, setBy, v, value)) return undefined;
    }
    return result;
  }

  expand(values: TemplateValues): string {
    let out = '';
    for (const part of this.#parts) out += typeof part === 'string' ? part : expandExpression(part, values);
    return out;
  }
}

function fail(template: string, reason: string): never {
  throw new Error(`Invalid URI template ${JSON.stringify(template)}: ${reason}`);
}

function parseParts(template: string): (string | Expression)[] {
  const parts: (string | Expression)[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '}') fail(template, `unmatched '}' at index ${i}`);
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    const close = template.indexOf('}', i + 1);
    if (close < 0) fail(template, `unclosed '{' at index ${i}`);
    const nested = template.indexOf('{', i + 1);
    if (nested >= 0 && nested < close) fail(template, `unclosed '{' at index ${i}`);
    if (literal) parts.push(literal);
    literal = '';
    parts.push(parseExpression(template, template.slice(i + 1, close), i));
    i = close + 1;
  }
  if (literal) parts.push(literal);
  return parts;
}

function parseExpression(template: string, body: string, at: number): Expression {
  if (body === '') fail(template, `empty expression at index ${at}`);
  const c = body[0]!;
  if (UNSUPPORTED_OPERATORS.includes(c)) fail(template, `unsupported operator '${c}' at index ${at}`);
  const op = ('+#./;?&'.includes(c) ? c : '') as Operator;
  const list = body.slice(op.length);
  if (list === '') fail(template, `expression at index ${at} has no variable`);
  const vars = list.split(',').map((spec): VarSpec => {
    let name = spec;
    let explode = false;
    let maxLength: number | undefined;
    if (name.endsWith('*')) {
      explode = true;
      name = name.slice(0, -1);
    }
    const colon = name.indexOf(':');
    if (colon >= 0) {
      if (explode) fail(template, `"${spec}" combines a prefix and explode`);
      const digits = name.slice(colon + 1);
      // max-length = %x31-39 0*3DIGIT, i.e. 1..9999
      if (!/^[1-9][0-9]{0,3}$/.test(digits)) fail(template, `invalid prefix length in "${spec}"`);
      maxLength = Number(digits);
      name = name.slice(0, colon);
    }
    if (!isVarName(name)) fail(template, `invalid variable name "${name}" at index ${at}`);
    return { name, explode, maxLength };
  });
  return { op, vars };
}

/** varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded */
function isVarName(name: string): boolean {
  let afterDot = true; // also rejects a leading dot and the empty name
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (afterDot) return false;
      afterDot = true;
      continue;
    }
    if (c === 0x25) {
      if (hexValue(name.charCodeAt(i + 1)) < 0 || hexValue(name.charCodeAt(i + 2)) < 0) return false;
      i += 2;
    } else if (!(isAlphaNum(c) || c === 0x5f)) {
      return false;
    }
    afterDot = false;
  }
  return !afterDot;
}

function toSegment(expr: Expression): Segment {
  const op = OPERATORS[expr.op];
  const single = expr.vars.length === 1 && !expr.vars[0]!.explode;
  let stops: string;
  switch (expr.op) {
    case '+':
    case '#':
      stops = ''; // reserved expansion may produce any character
      break;
    case '?':
    case '&':
      stops = '#';
      break;
    case '.':
      stops = single ? './?#' : '/?#'; // one label, or several joined by '.'
      break;
    case '/':
      stops = single ? '/?#' : '?#'; // one segment, or several joined by '/'
      break;
    default:
      stops = '/?#'; // '' and ';' stay inside one path segment
  }
  const table = new Uint8Array(128);
  for (const c of stops) table[c.charCodeAt(0)] = 1;
  return { op, vars: [...expr.vars], optional: op.first !== '', stops: table, literal: '' };
}

/**
 * Picks where each segment's expression text lies in `s`, or undefined when the
 * template cannot match. Returns [start, end) per segment (after the operator's
 * leading character), or null for an expression that is absent.
 *
 * Priority when several splits work: an expression is present rather than absent,
 * and as short as possible, left to right. So `{+path}{?q}` on `a/b?q=1` gives
 * path=a/b rather than swallowing the query, and `{name}{.ext}` on `a.tar.gz`
 * gives ext=gz. Checks that need decoding (valid UTF-8, prefix length) run on
 * the chosen split; failing them means no match, not a search for another split.
 */
function findRuns(s: string, start: number, segments: readonly Segment[]): ([number, number] | null)[] | undefined {
  const n = s.length;
  const count = segments.length;
  // choice[k][j] says how segment k is matched when it starts at j and segments
  // k+1.. must match what follows: 0 = impossible (a present expression always
  // ends after offset 0), ABSENT, or the end of its text. Filled right to left,
  // one backward pass per segment, so the forward pass below never backtracks.
  const choice: Int32Array[] = new Array<Int32Array>(count);
  const nextEnd = new Int32Array(n + 2); // smallest e' >= e at which the expression may end
  const runEnd = new Int32Array(n + 1); // end of the run of allowed characters from r
  for (let k = count - 1; k >= 0; k--) {
    const seg = segments[k]!;
    const after = k + 1 < count ? choice[k + 1]! : undefined;
    const here = new Int32Array(n + 1);
    const { literal, stops, optional } = seg;
    const first = seg.op.first;
    const firstCode = first.charCodeAt(0); // NaN when there is no leading character
    nextEnd[n + 1] = n + 1;
    for (let j = n; j >= start; j--) {
      // The expression may end at j: its literal follows and the rest can match.
      const rest = j + literal.length;
      const restOk = after ? rest <= n && after[rest] !== 0 : rest === n;
      const endsHere = restOk && (literal === '' || s.startsWith(literal, j));
      nextEnd[j] = endsHere ? j : nextEnd[j + 1]!;
      const c = s.charCodeAt(j);
      runEnd[j] = j < n && !(c < 128 && stops[c] === 1) ? runEnd[j + 1]! : j;

      const r = first === '' ? j : c === firstCode ? j + 1 : n + 1;
      // Present: shortest text of at least one allowed character that can end.
      if (r < n && nextEnd[r + 1]! <= runEnd[r]!) here[j] = nextEnd[r + 1]!;
      else if (optional && endsHere) here[j] = ABSENT;
    }
    choice[k] = here;
  }
  if (choice[0]![start] === 0) return undefined;

  const runs: ([number, number] | null)[] = [];
  let j = start;
  for (let k = 0; k < count; k++) {
    const seg = segments[k]!;
    const end = choice[k]![j]!;
    if (end === ABSENT) {
      runs.push(null);
      j += seg.literal.length;
    } else {
      runs.push([j + seg.op.first.length, end]);
      j = end + seg.literal.length;
    }
  }
  return runs;
}

const ABSENT = -1;

type Found = [VarSpec, string | string[]][];

/** Splits one expression's text into decoded values; undefined when they are not acceptable. */
function extract(text: string, seg: Segment): Found | undefined {
  const { sep, named } = seg.op;
  const pieces = text.split(sep);
  if (named) {
    // Parameters by name, in any order. Unknown ones are ignored: clients and
    // proxies add parameters (cache busters, tracking) and a resource should not
    // become unreachable because of them. Only known ones are decoded.
    const byName = new Map(seg.vars.map((v) => [v.name, v]));
    const found = new Map<VarSpec, string | string[]>();
    for (const piece of pieces) {
      const eq = piece.indexOf('=');
      const v = byName.get(eq < 0 ? piece : piece.slice(0, eq));
      if (!v) continue;
      const value = decode(eq < 0 ? '' : piece.slice(eq + 1), v);
      if (value === undefined) return undefined;
      const previous = found.get(v);
      if (v.explode) {
        if (Array.isArray(previous)) previous.push(value);
        else found.set(v, [value]);
      } else if (previous !== undefined) {
        return undefined; // a repeated scalar parameter is ambiguous
      } else {
        found.set(v, value);
      }
    }
    return [...found];
  }

  // Positional: one piece per variable, the last variable takes what is left.
  const found: Found = [];
  for (let i = 0; i < seg.vars.length && i < pieces.length; i++) {
    const v = seg.vars[i]!;
    const rest = i === seg.vars.length - 1 ? pieces.slice(i) : [pieces[i]!];
    if (v.explode) {
      const items: string[] = [];
      for (const piece of rest) {
        const item = decode(piece, v);
        if (item === undefined) return undefined;
        items.push(item);
      }
      found.push([v, items]);
    } else {
      // A list expands joined by ',' (the same as sep for '', '+' and '#'), so
      // there the rest is one value. With '.' or '/' extra pieces cannot be placed.
      if (rest.length > 1 && sep !== ',') return undefined;
      const value = decode(rest.join(sep), v);
      if (value === undefined) return undefined;
      found.push([v, value]);
    }
  }
  return found;
}

/** Stores a value; a name seen before must agree with itself (a prefix occurrence only up to its length). */
function assign(
  out: Record<string, string | string[]>,
  setBy: Map<string, VarSpec>,
  v: VarSpec,
  value: string | string[],
): boolean {
  const previousSpec = setBy.get(v.name);
  const previous = out[v.name];
  if (!previousSpec || previous === undefined) {
    setBy.set(v.name, v);
    setValue(out, v.name, value);
    return true;
  }
  if (typeof previous !== 'string' || typeof value !== 'string') {
    return JSON.stringify(previous) === JSON.stringify(value);
  }
  if (truncate(value, previousSpec.maxLength) === previous) {
    setBy.set(v.name, v); // keep the longer, full value
    setValue(out, v.name, value);
    return true;
  }
  return truncate(previous, v.maxLength) === value;
}

function truncate(value: string, maxLength: number | undefined): string {
  return maxLength === undefined ? value : Array.from(value).slice(0, maxLength).join('');
}

// defineProperty so a variable called "__proto__" is stored as data, not as the prototype.
function setValue(out: Record<string, string | string[]>, name: string, value: string | string[]): void {
  Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
}

/** Percent-decodes one value; undefined on malformed sequences or an exceeded prefix length. */
function decode(raw: string, v: VarSpec): string | undefined {
  let value: string;
  try {
    value = raw.includes('%') ? decodeURIComponent(raw) : raw;
  } catch {
    return undefined; // URIError: '%' not followed by hex, or invalid UTF-8
  }
  return truncate(value, v.maxLength) === value ? value : undefined;
}

function expandExpression(expr: Expression, values: TemplateValues): string {
  const op = OPERATORS[expr.op];
  const items: string[] = [];
  const pair = (name: string, encoded: string) => (encoded === '' ? name + op.ifEmpty : `${name}=${encoded}`);
  for (const v of expr.vars) {
    const value = Object.hasOwn(values, v.name) ? values[v.name] : undefined;
    if (value === undefined) continue;
    if (typeof value === 'object') {
      if (value.length === 0) continue; // RFC 6570 2.3: an empty list counts as undefined
      // Prefix modifiers do not apply to lists (RFC 6570 2.4.1).
      const encoded = value.map((item) => encode(String(item), op.reserved));
      if (v.explode) items.push(encoded.map((item) => (op.named ? pair(v.name, item) : item)).join(op.sep));
      else items.push(op.named ? pair(v.name, encoded.join(',')) : encoded.join(','));
    } else {
      const encoded = encode(truncate(String(value), v.maxLength), op.reserved);
      items.push(op.named ? pair(v.name, encoded) : encoded);
    }
  }
  return items.length === 0 ? '' : op.first + items.join(op.sep);
}

const HEX = Array.from({ length: 256 }, (_, b) => '%' + b.toString(16).toUpperCase().padStart(2, '0'));
const RESERVED = ":/?#[]@!$&'()*+,;=";
const utf8 = new TextEncoder();

/**
 * Unreserved characters pass; with `reserved` ({+x}, {#x}) so do reserved ones and
 * existing %XX triplets. Everything else is UTF-8 percent-encoded. TextEncoder turns
 * lone surrogates into U+FFFD, so this never throws (encodeURIComponent would).
 */
function encode(value: string, reserved: boolean): string {
  let out = '';
  const bytes = utf8.encode(value);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const c = String.fromCharCode(b);
    const keep =
      b < 0x80 &&
      (isUnreserved(b) ||
        (reserved &&
          (RESERVED.includes(c) ||
            (b === 0x25 && hexValue(bytes[i + 1] ?? 0) >= 0 && hexValue(bytes[i + 2] ?? 0) >= 0))));
    out += keep ? c : HEX[b]!;
  }
  return out;
}

function isAlphaNum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 2.3) */
function isUnreserved(c: number): boolean {
  return isAlphaNum(c) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Uppercases %xx and decodes the ones that are unreserved characters (RFC 3986 6.2.2.1-2). */
function normalizePercent(s: string): string {
  if (!s.includes('%')) return s;
  let out = '';
  let from = 0;
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', i + 1)) {
    const hi = hexValue(s.charCodeAt(i + 1));
    const lo = hexValue(s.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) continue; // malformed: left as it is
    const b = hi * 16 + lo;
    out += s.slice(from, i) + (isUnreserved(b) ? String.fromCharCode(b) : HEX[b]!);
    from = i + 3;
    i += 2;
  }
  return out + s.slice(from);
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/; // fixed, anchored, one quantifier: linear

/**
 * The one canonical form used to compare URIs: percent-encoding normalised as
 * above, scheme lowercased, and for `scheme://authority...` the host lowercased
 * (not the userinfo, which is case-sensitive). Never throws.
 */
export function canonicalUri(uri: string): string {
  const s = normalizePercent(uri);
  const scheme = SCHEME.exec(s);
  if (!scheme) return s;
  const lowered = scheme[0].toLowerCase() + s.slice(scheme[0].length);
  const authority = authorityRange(lowered);
  if (!authority) return lowered;
  const [start, end] = authority;
  const at = lowered.lastIndexOf('@', end - 1);
  const hostStart = at >= start ? at + 1 : start;
  return lowered.slice(0, hostStart) + lowerHost(lowered.slice(hostStart, end)) + lowered.slice(end);
}

/** [start, end) of the authority of `scheme://authority...`, else undefined. */
function authorityRange(s: string): [number, number] | undefined {
  const scheme = SCHEME.exec(s);
  if (!scheme || !s.startsWith('//', scheme[0].length)) return undefined;
  const start = scheme[0].length + 2;
  const end = s.slice(start).search(/[/?#]/);
  return [start, end < 0 ? s.length : start + end];
}

/** ASCII letters are case-insensitive in a host; %XX triplets keep their uppercase hex. */
function lowerHost(host: string): string {
  return host.replace(/%[0-9A-F]{2}|[A-Z]+/g, (m) => (m[0] === '%' ? m : m.toLowerCase()));
}
