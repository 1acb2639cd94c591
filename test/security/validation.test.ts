/**
 * Finding 1: raw JSON Schema validation cannot hang or crash the server. Validation is synchronous, so
 * a backtracking format check would freeze every request; these tests are hang detectors with a
 * generous budget (not speed tests): a linear check takes microseconds, the old exponential `url`
 * check took seconds at 40 characters and doubles its time with every added character.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCaller } from './support/hang-detector.js';

const BUDGET_MS = 2_000;
const caller = toolCaller(BUDGET_MS);
// The first call starts the worker and loads the validator: not part of any budget.
beforeAll(() => caller.call({ type: 'object' }, '{}'), 60_000);
afterAll(() => caller.close());

async function callWith(input: Record<string, unknown>, args: unknown) {
  const reply = await caller.call(input, typeof args === 'string' ? args : JSON.stringify(args));
  return { hung: reply === 'hang', result: reply?.result, error: reply?.error };
}

const stringWith = (format: string) => ({ type: 'object', properties: { v: { type: 'string', format } } });

/** A valid value per format, so a check that refuses everything fails these tests. */
const VALID: Record<string, string> = {
  date: '2026-11-24', time: '07:40:00Z', 'date-time': '2026-11-24T07:40:00Z', duration: 'P1DT2H',
  uri: 'https://example.com/a?b=c#d', 'uri-reference': '../a/b?c', 'uri-template': 'file:///{path}',
  url: 'https://example.com/path', email: 'alice@example.com', hostname: 'example.com', ipv4: '127.0.0.1',
  ipv6: '::1', regex: '^a+$', uuid: '123e4567-e89b-12d3-a456-426614174000', 'json-pointer': '/a/b~1c',
  'json-pointer-uri-fragment': '#/a/b', 'relative-json-pointer': '1/a',
};

/** Inputs shaped to make backtracking regexes explode, short and long. */
function adversarial(): string[] {
  const out: string[] = [];
  // The report's shape first, growing: the old check crosses the budget near 40 characters.
  for (let n = 20; n <= 44; n += 4) out.push(`http://${'a'.repeat(n)}!`);
  for (let n = 20; n <= 44; n += 4) out.push(`http://${'a1.'.repeat(n)}!`, `http://${'a-'.repeat(n)}!`);
  const long = 100_000;
  for (const piece of ['a', 'a-', 'a.', '1.', '%41', '/a', 'a:', '{a}', '~0', '::', '(', ' ']) {
    out.push(piece.repeat(long / piece.length) + '!', `http://${piece.repeat(long / piece.length)}\u0000`, `#/${piece.repeat(long / piece.length)}`);
  }
  return out;
}

describe('format checks are linear', () => {
  for (const format of Object.keys(VALID)) {
    it(`"${format}": a valid value passes, adversarial values finish within the budget`, async () => {
      const ok = await callWith(stringWith(format), { v: VALID[format] });
      expect(ok.result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
      for (const v of adversarial()) {
        const { hung, result } = await callWith(stringWith(format), { v });
        expect(hung, `${format} did not answer within ${BUDGET_MS} ms for ${JSON.stringify(v.slice(0, 30))}... (${v.length} chars)`).toBe(false);
        expect(result, `${format} answered`).toBeDefined();
      }
    });
  }

  it('the url shape from the report is refused quickly, and its error names the format', async () => {
    const { hung, result } = await callWith(stringWith('url'), { v: `http://${'a'.repeat(50)}!` });
    expect(hung).toBe(false);
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(`Invalid arguments for tool 't': v: String does not match format "url".`);
  });

  it('a "format" keyword inside const/enum data is data, not a check', async () => {
    const input = { type: 'object', properties: { v: { const: { format: 'url' } } } };
    expect((await callWith(input, { v: { format: 'url' } })).result.isError).toBeUndefined();
  });
});

describe('format checks accept at most MAX_FORMAT_LENGTH characters', () => {
  // Valid values of any length: each is refused one character past the bound, before its check runs.
  const longValid: Record<string, (n: number) => string> = {
    regex: (n) => 'a'.repeat(n),
    uri: (n) => `https://example.com/${'a'.repeat(n - 20)}`,
    'uri-reference': (n) => 'a'.repeat(n),
    url: (n) => `https://example.com/${'a'.repeat(n - 20)}`,
    'uri-template': (n) => `file:///{${'a'.repeat(n - 10)}}`,
    'json-pointer': (n) => `/${'a'.repeat(n - 1)}`,
    'json-pointer-uri-fragment': (n) => `#/${'a'.repeat(n - 2)}`,
    'relative-json-pointer': (n) => `1/${'a'.repeat(n - 2)}`,
  };
  for (const [format, make] of Object.entries(longValid)) {
    it(`"${format}": 8,192 characters pass, 8,193 do not`, async () => {
      expect(make(8_192)).toHaveLength(8_192);
      expect((await callWith(stringWith(format), { v: make(8_192) })).result.isError, 'at the bound').toBeUndefined();
      const past = await callWith(stringWith(format), { v: make(8_193) });
      expect(past.result.content[0].text).toBe(`Invalid arguments for tool 't': v: String does not match format "${format}".`);
    });
  }

  it('a 3.9 MB string in a "regex" argument is refused by its length, not compiled', async () => {
    const { hung, result } = await callWith(stringWith('regex'), { v: '[a]'.repeat(1_300_000) });
    expect(hung).toBe(false);
    expect(result.content[0].text).toBe(`Invalid arguments for tool 't': v: String does not match format "regex".`);
  });
});

describe('large and deep invalid values', () => {
  it('a 300 KB array of invalid items is an invalid-arguments result, not an internal error', async () => {
    const input = { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } } };
    const xs = Array(150_000).fill(1); // "1," per item: 300 KB of JSON
    const { error, result } = await callWith(input, { xs });
    expect(error).toBeUndefined();
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe("Invalid arguments for tool 't': xs.0: Instance type \"number\" is invalid. Expected \"string\".");
  });

  it('a value nested deeper than the stack is invalid arguments, not an internal error', async () => {
    const input = { $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } }, type: 'object', properties: { t: { $ref: '#/$defs/node' } } };
    const { error, result } = await callWith(input, `{"t":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ isError: true, content: [{ text: "Invalid arguments for tool 't': Value is nested too deeply to validate" }] });
  });
});

describe('uniqueItems is not quadratic (issue 12)', () => {
  const listOf = (items: Record<string, unknown>) => ({ type: 'object', properties: { xs: { type: 'array', uniqueItems: true, items } } });
  // 60,000 items: the validator's pairwise loop makes 3.6e9 comparisons (many seconds); a linear pass, milliseconds.
  const numbers = Array.from({ length: 60_000 }, (_, i) => i);

  it('a large array of distinct numbers is valid, within the budget', async () => {
    const { hung, result } = await callWith(listOf({ type: 'integer' }), { xs: numbers });
    expect(hung, `no answer within ${BUDGET_MS} ms`).toBe(false);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
  });

  it('a large array of distinct objects is valid, within the budget', async () => {
    const objects = numbers.slice(0, 15_000).map((i) => ({ id: i, tags: ['a', 'b'], owner: { name: 'n' } }));
    const { hung, result } = await callWith(listOf({ type: 'object' }), { xs: objects });
    expect(hung, `no answer within ${BUDGET_MS} ms`).toBe(false);
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ran' }] });
  });

  it('a large array with one duplicate at its end is refused, within the budget', async () => {
    const { hung, result } = await callWith(listOf({ type: 'integer' }), { xs: [...numbers, 7] });
    expect(hung, `no answer within ${BUDGET_MS} ms`).toBe(false);
    expect(result).toMatchObject({ isError: true, content: [{ text: "Invalid arguments for tool 't': Arrays too large to check for duplicate items" }] });
  });
});
