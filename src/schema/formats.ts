/**
 * String formats checked in time linear in the input. The JSON Schema validator's own `url` check is a
 * regex that backtracks exponentially (about 50 characters freeze the process, and validation is
 * synchronous, so no timeout can stop it). Its other format regexes were measured linear, but a
 * format that has a natural maximum length is refused past it anyway, before any regex runs: a
 * 4 MiB string then costs one length comparison. Every other format accepts at most
 * MAX_FORMAT_LENGTH characters: linear is still ~0.1-0.4 µs a character (`regex` compiles the
 * client's string as a RegExp: a 3.9 MB argument held the event loop for up to 1.4 s).
 *
 * The validator reads formats from one table shared by everyone in the process. Rather than change
 * the meaning of its entries for other users, the schema copy given to the validator names these
 * checks under a private prefix (see `useLinearFormats`).
 */
import { visitSchemas } from './schema-walk.js';

/** Private prefix of the names the validator sees; error messages show the plain name again. */
export const FORMAT_PREFIX = 'minimcp-linear:';

// RFC 3986 characters. One character class and one lookahead of fixed length: each scan is linear.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BROKEN_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*:/;
const WEB_SCHEME = /^(?:https?|ftp):\/\//i;
const WHITESPACE = /\s/;
/** A parsed host: a domain name (IDNs arrive as punycode) or a bracketed IPv6 address. */
const WEB_HOST = /^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/;
/** Resolves relative references without touching the network: a base nobody can own. */
const REFERENCE_BASE = 'http://reference.invalid/';

const rfc3986 = (s: string): boolean => URI_CHARACTERS.test(s) && !BROKEN_PERCENT.test(s);

/** The WHATWG URL parser is a single pass; it checks what the character scan cannot (brackets, ports). */
const LINEAR_FORMATS: Record<string, (s: string) => boolean> = {
  uri: (s) => rfc3986(s) && SCHEME.test(s) && URL.canParse(s),
  'uri-reference': (s) => rfc3986(s) && URL.canParse(s, REFERENCE_BASE),
  // A web address with a host. Syntax only: it says nothing about where the host resolves.
  url: (s) => WEB_SCHEME.test(s) && !WHITESPACE.test(s) && WEB_HOST.test(hostOf(s)),
};

function hostOf(s: string): string {
  try {
    return new URL(s).hostname;
  } catch {
    return '';
  }
}

/** The longest valid value of the formats that have one (RFC 3339, 4122, 1123, 5321, 4291). */
const MAX_LENGTH: Record<string, number> = {
  date: 10,
  time: 64, // fractional seconds may be long; 64 is generous
  'date-time': 128,
  duration: 128,
  uuid: 36,
  ipv4: 15,
  ipv6: 45,
  hostname: 253,
  email: 64 + 1 + 255,
};

/** The longest string any format check accepts (formats above have their own, shorter, maximum). */
export const MAX_FORMAT_LENGTH = 8_192;

/** The validator's other formats: no natural maximum, so they get MAX_FORMAT_LENGTH. */
const CAPPED = ['uri-template', 'regex', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer'];

/** Registers the linear checks in the validator's format table, once per table. */
export function installLinearFormats(table: Record<string, (s: string) => boolean>): void {
  if (table[`${FORMAT_PREFIX}uri`] !== undefined) return;
  const bounded = (max: number, check: (s: string) => boolean) => (s: string) => s.length <= max && check(s);
  for (const [name, check] of Object.entries(LINEAR_FORMATS)) table[FORMAT_PREFIX + name] = bounded(MAX_FORMAT_LENGTH, check);
  for (const [name, max] of Object.entries(MAX_LENGTH)) {
    const check = table[name];
    if (check !== undefined) table[FORMAT_PREFIX + name] = bounded(max, check);
  }
  for (const name of CAPPED) {
    const check = table[name];
    if (check !== undefined) table[FORMAT_PREFIX + name] = bounded(MAX_FORMAT_LENGTH, check);
  }
}

const replaced = (name: string): boolean => name in LINEAR_FORMATS || name in MAX_LENGTH || CAPPED.includes(name);

/** Points every replaced `format` in a schema (the validator's private copy) at its linear check. */
export function useLinearFormats(schema: unknown): void {
  visitSchemas(schema, (node) => {
    if (typeof node.format === 'string' && replaced(node.format)) node.format = FORMAT_PREFIX + node.format;
  });
}
