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

import { assign, extract, findRuns, truncate, type OperatorInfo, type Segment, type VarSpec } from './uri-match.js';
import { authorityRange, canonicalUri, encode, foldCase, hexValue, isAlphaNum, lowerHost, normalizePercent } from './uri.js';

export { canonicalUri, foldCase, normalizePercent } from './uri.js';

export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[]; // names in order of appearance
  /** Variables extracted (percent-decoded) when `uri` matches, else undefined. */
  match(uri: string): Record<string, string | string[]> | undefined;
  /**
   * `match` for a URI already in canonical form (canonicalUri): no second pass over it. `cased` is the
   * same URI before its host was lowercased (normalizePercent only): values are read from it, so a
   * variable in the host position (`users://{userId}`) keeps its case.
   */
  matchCanonical(uri: string, cased?: string): Record<string, string | string[]> | undefined;
  /** Expand with values (percent-encoding as RFC 6570 says for each operator). */
  expand(values: Record<string, string | number | boolean | readonly string[] | undefined>): string;
  /** Higher = more specific: used to pick the most specific template when several match. */
  readonly specificity: number;
}

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';


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

interface Expression {
  readonly op: Operator;
  readonly vars: readonly VarSpec[];
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
    const cased = normalizePercent(uri);
    return this.matchCanonical(foldCase(cased), cased);
  }

  /** `match` for a URI already in canonical form: a read canonicalises once, not once per template. */
  matchCanonical(s: string, cased = s): Record<string, string | string[]> | undefined {
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
      const found = extract(cased.slice(run[0], run[1]), segments[k]!);
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
