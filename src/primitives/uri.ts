/**
 * URI text helpers: RFC 6570 percent-encoding and the one canonical URI form MiniMCP matches
 * resources in (RFC 3986 section 6.2.2 normalisation). No regex here runs on a template.
 */

const HEX = Array.from({ length: 256 }, (_, b) => '%' + b.toString(16).toUpperCase().padStart(2, '0'));
const RESERVED = ":/?#[]@!$&'()*+,;=";
const utf8 = new TextEncoder();

/**
 * Unreserved characters pass; with `reserved` ({+x}, {#x}) so do reserved ones and
 * existing %XX triplets. Everything else is UTF-8 percent-encoded. TextEncoder turns
 * lone surrogates into U+FFFD, so this never throws (encodeURIComponent would).
 */
export function encode(value: string, reserved: boolean): string {
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

export function isAlphaNum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 2.3) */
function isUnreserved(c: number): boolean {
  return isAlphaNum(c) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e;
}

export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Uppercases %xx and decodes the ones that are unreserved characters (RFC 3986 6.2.2.1-2). */
export function normalizePercent(s: string): string {
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
  return foldCase(normalizePercent(uri));
}

/**
 * The case-folding half of canonicalUri, on a percent-normalised URI. It keeps the length, so an offset
 * found in its result holds in its input too: template variables are read from the input, with their case.
 */
export function foldCase(s: string): string {
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
export function authorityRange(s: string): [number, number] | undefined {
  const scheme = SCHEME.exec(s);
  if (!scheme || !s.startsWith('//', scheme[0].length)) return undefined;
  const start = scheme[0].length + 2;
  const end = s.slice(start).search(/[/?#]/);
  return [start, end < 0 ? s.length : start + end];
}

/** ASCII letters are case-insensitive in a host; %XX triplets keep their uppercase hex. */
export function lowerHost(host: string): string {
  return host.replace(/%[0-9A-F]{2}|[A-Z]+/g, (m) => (m[0] === '%' ? m : m.toLowerCase()));
}
