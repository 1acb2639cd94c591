/**
 * The v1 Server Card rules, checked synchronously at start-up (the JSON Schema validator loads
 * asynchronously, and a bad card must stop the server before it listens). They follow the published
 * `schema.json`; test/unit/server-card-check.test.ts runs the extension's fixtures and our cards
 * through both and checks they agree. One rule more than the schema: a version range is refused,
 * as the schema's own description asks.
 */

export const CARD_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const REMOTE_URL = /^(https?:\/\/[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$/;
// An absolute URI (RFC 3986 §4.3: a scheme, then no spaces), as JSON Schema's `uri` format needs.
const URI = /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/;
const RANGE = /^[\^~<>=]|\s-\s|\|\||(?:^|\.)[xX*](?:\.|$)/;
const INPUT_STRINGS = ['description', 'default', 'placeholder', 'value'] as const;

type Problem = string | undefined;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  uri?: boolean;
  oneOf?: readonly string[];
  /** Said after a pattern, so the user need not read the regex. */
  hint?: string;
}

function text(value: unknown, at: string, rule: StringRule = {}): Problem {
  if (value === undefined) return `${at} is required`;
  if (typeof value !== 'string') return `${at} must be a string`;
  if (rule.min !== undefined && value.length < rule.min) return `${at} must be at least ${rule.min} characters`;
  if (rule.max !== undefined && value.length > rule.max) return `${at} must be at most ${rule.max} characters (it has ${value.length})`;
  if (rule.pattern && !rule.pattern.test(value)) return `${at} must match ${rule.pattern.source.replaceAll('\\/', '/')}${rule.hint ?? ''}`;
  if (rule.uri && !URI.test(value)) return `${at} must be an absolute URI`;
  if (rule.oneOf && !rule.oneOf.includes(value)) return `${at} must be one of ${rule.oneOf.join(', ')}`;
  return undefined;
}

const optional = (value: unknown, check: () => Problem): Problem => (value === undefined ? undefined : check());

function list(value: unknown, at: string, item: (entry: unknown, at: string) => Problem): Problem {
  if (!Array.isArray(value)) return `${at} must be an array`;
  for (let i = 0; i < value.length; i++) {
    const problem = item(value[i], `${at}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

function map(value: unknown, at: string, item: (entry: unknown, at: string) => Problem): Problem {
  if (!isObject(value)) return `${at} must be an object`;
  for (const key of Object.keys(value)) {
    const problem = item(value[key], `${at}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

const first = (...problems: (() => Problem)[]): Problem => {
  for (const problem of problems) {
    const found = problem();
    if (found) return found;
  }
  return undefined;
};

function input(value: unknown, at: string): Problem {
  if (!isObject(value)) return `${at} must be an object`;
  return first(
    ...INPUT_STRINGS.map((key) => () => optional(value[key], () => text(value[key], `${at}.${key}`))),
    () => optional(value.isRequired, () => (typeof value.isRequired === 'boolean' ? undefined : `${at}.isRequired must be a boolean`)),
    () => optional(value.isSecret, () => (typeof value.isSecret === 'boolean' ? undefined : `${at}.isSecret must be a boolean`)),
    () => optional(value.format, () => text(value.format, `${at}.format`, { oneOf: ['boolean', 'filepath', 'number', 'string'] })),
    () => optional(value.choices, () => list(value.choices, `${at}.choices`, (c, where) => text(c, where))),
  );
}

function header(value: unknown, at: string): Problem {
  return first(
    () => input(value, at),
    () => text((value as Json).name, `${at}.name`),
    () => optional((value as Json).variables, () => map((value as Json).variables, `${at}.variables`, input)),
  );
}

function remote(value: unknown, at: string): Problem {
  if (!isObject(value)) return `${at} must be an object`;
  return first(
    () => text(value.type, `${at}.type`, { oneOf: ['sse', 'streamable-http'] }),
    () => text(value.url, `${at}.url`, { pattern: REMOTE_URL, hint: ' (an http(s) URL, or a {variable} first)' }),
    () => optional(value.headers, () => list(value.headers, `${at}.headers`, header)),
    () => optional(value.variables, () => map(value.variables, `${at}.variables`, input)),
    () => optional(value.supportedProtocolVersions, () => list(value.supportedProtocolVersions, `${at}.supportedProtocolVersions`, (v, where) => text(v, where))),
  );
}

function icon(value: unknown, at: string): Problem {
  if (!isObject(value)) return `${at} must be an object`;
  return first(
    () => text(value.src, `${at}.src`, { uri: true }),
    () => optional(value.mimeType, () => text(value.mimeType, `${at}.mimeType`)),
    () => optional(value.sizes, () => list(value.sizes, `${at}.sizes`, (s, where) => text(s, where))),
    () => optional(value.theme, () => text(value.theme, `${at}.theme`, { oneOf: ['dark', 'light'] })),
  );
}

function repository(value: unknown, at: string): Problem {
  if (!isObject(value)) return `${at} must be an object`;
  return first(
    () => text(value.url, `${at}.url`, { uri: true }),
    () => text(value.source, `${at}.source`),
    () => optional(value.subfolder, () => text(value.subfolder, `${at}.subfolder`)),
    () => optional(value.id, () => text(value.id, `${at}.id`)),
  );
}

function version(value: unknown): Problem {
  return text(value, 'version', { max: 255 }) ?? (RANGE.test(value as string) ? `version must be one version, not a range (got ${String(value)})` : undefined);
}

/** The first rule the card breaks, as "field: rule" words, or undefined when it is a valid v1 card. */
export function cardProblem(card: unknown): Problem {
  if (!isObject(card)) return 'the card must be a JSON object';
  return first(
    () => text(card.$schema, '$schema', { oneOf: [CARD_SCHEMA_URL] }),
    () => text(card.name, 'name', { min: 3, max: 200, pattern: NAME, hint: ' (namespace/name, the namespace in reverse-DNS form: io.github.acme/weather)' }),
    () => version(card.version),
    () => text(card.description, 'description', { min: 1, max: 100 }),
    () => optional(card.title, () => text(card.title, 'title', { min: 1, max: 100 })),
    () => optional(card.websiteUrl, () => text(card.websiteUrl, 'websiteUrl', { uri: true })),
    () => optional(card.repository, () => repository(card.repository, 'repository')),
    () => optional(card.icons, () => list(card.icons, 'icons', icon)),
    () => optional(card.remotes, () => list(card.remotes, 'remotes', remote)),
    () => optional(card._meta, () => (isObject(card._meta) ? undefined : '_meta must be an object')),
  );
}
