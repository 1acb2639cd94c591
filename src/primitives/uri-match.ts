/**
 * The matching half of URI templates: where each expression's text lies in a URI (a right-to-left
 * dynamic program, linear in the URI's length per segment) and the decoded values in it.
 */
/** How an RFC 6570 operator expands (Appendix A): what the parser builds and the matcher reads. */
export interface OperatorInfo {
  readonly first: string; // emitted before the first defined variable
  readonly sep: string; // between variables and between exploded list items
  readonly named: boolean; // emits name=value pairs
  readonly ifEmpty: string; // after the name when the value is empty
  readonly reserved: boolean; // reserved characters pass through unencoded
}

export interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly maxLength: number | undefined; // prefix modifier {x:3}
}

/** One expression (adjacent `{?a}{&b}` merged) and the literal that follows it, for matching. */
export interface Segment {
  readonly op: OperatorInfo;
  readonly vars: VarSpec[];
  /** Operators with a leading character expand to '' when all variables are undefined. */
  readonly optional: boolean;
  /** stops[c] === 1 for ASCII characters the expression's text cannot contain. */
  readonly stops: Uint8Array;
  literal: string; // canonical form
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
export function findRuns(s: string, start: number, segments: readonly Segment[]): ([number, number] | null)[] | undefined {
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

export const ABSENT = -1;

export type Found = [VarSpec, string | string[]][];

/** Splits one expression's text into decoded values; undefined when they are not acceptable. */
export function extract(text: string, seg: Segment): Found | undefined {
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
export function assign(
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

export function truncate(value: string, maxLength: number | undefined): string {
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
  // NUL ends strings in C APIs and file systems: a value holding one is never a real name.
  if (value.includes('\u0000')) return undefined;
  return truncate(value, v.maxLength) === value ? value : undefined;
}
