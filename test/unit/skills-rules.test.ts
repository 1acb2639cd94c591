/**
 * Skills over MCP (SEP-2640): the SKILL.md frontmatter parser (the YAML subset, read as YAML 1.2
 * reads it, anything else refused with its line) and every registration rule, each failing with an
 * error that names the file and the rule.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, MAX_SKILL_BYTES, MAX_SKILL_FILES } from '../../src/index.js';
import { parseFrontmatter } from '../../src/skills/frontmatter.js';

const skillMd = (frontmatter: string, body = '# Body\n') => `---\n${frontmatter}\n---\n\n${body}`;
const register = (path: string, files: Record<string, string | Uint8Array | (() => string)>) =>
  new MiniMCP({ name: 's', version: '1' }).skill({ path, files });
const valid = skillMd('name: refunds\ndescription: Process refunds');

describe('frontmatter: the YAML subset', () => {
  it('plain scalars resolve by the YAML 1.2 core schema; quoted ones stay strings', () => {
    expect(parseFrontmatter([
      'a: text here', 'n: 12', 'neg: -3', 'f: 1.5', 'e: 2e3', 'hex: 0x1F', 'oct: 0o17', 't: true', 'F: False', 'nil: ~', 'empty:',
      'q: "12"', "s: 'it''s'", 'esc: "tab\\tA\\u00e9"', 'c: value # a comment', 'url: https://example.com/a#b',
    ].join('\n'))).toEqual({
      a: 'text here', n: 12, neg: -3, f: 1.5, e: 2000, hex: 31, oct: 15, t: true, F: false, nil: null, empty: null,
      q: '12', s: "it's", esc: 'tab\tAé', c: 'value', url: 'https://example.com/a#b',
    });
  });

  it('block scalars (| and >, with chomping), one nested mapping and block lists', () => {
    const yaml = ['lit: |', '  one', '  # kept', '  two', 'fold: >-', '  a', '  b', '', '  c', 'keep: |+', '  x', '', 'meta:', '  k: v', '  n: "1"',
      'list:', '  - a', "  - 'b'", 'flat:', '- x'].join('\n');
    expect(parseFrontmatter(yaml)).toEqual({
      lit: 'one\n# kept\ntwo\n', fold: 'a b\nc', keep: 'x\n\n', meta: { k: 'v', n: '1' }, list: ['a', 'b'], flat: ['x'],
    });
  });

  it('refuses what it does not read exactly as YAML does, naming the line', () => {
    const cases: [string, RegExp][] = [
      ['a: 1\nb: x: y', /line 2: a plain value cannot contain ": "/],
      ['a: [1, 2]', /line 1: "\[" starts YAML syntax/],
      ['a: &anchor x', /"&" starts YAML syntax/],
      ['a: *alias', /"\*" starts YAML syntax/],
      ['a: !tag x', /"!" starts YAML syntax/],
      ['a: 1\na: 2', /line 2: duplicate key "a"/],
      ['m:\n  a:\n    b: 1', /line 3: mappings nest one level at most/],
      ['a: "open', /unterminated double-quoted/],
      ["a: 'open", /unterminated single-quoted/],
      ['a: .inf', /not representable in JSON/],
      ['\ta: 1', /tabs are not allowed/],
      ['just text', /expected `key: value`/],
      ['a: 1\n  b: 2', /line 2: unexpected indentation/],
      ['a: 1\n__proto__:\n  name: x', /line 2: the key "__proto__" is refused/],
      ['"__proto__": 1', /line 1: the key "__proto__" is refused/],
      ['metadata:\n  __proto__: "x"', /line 2: the key "__proto__" is refused/],
    ];
    for (const [yaml, error] of cases) expect(() => parseFrontmatter(yaml), yaml).toThrow(error);
  });

  it('reads mappings into objects without a prototype', () => {
    const parsed = parseFrontmatter('a: 1\nmetadata:\n  k: "v"');
    expect([Object.getPrototypeOf(parsed), Object.getPrototypeOf(parsed.metadata)]).toEqual([null, null]);
  });
});

describe('registration rules: each names the file and the rule', () => {
  it('accepts a valid skill (the baseline for the failures below)', async () => {
    await expect(register('refunds', { 'SKILL.md': valid })).resolves.toBeInstanceOf(MiniMCP);
  });

  const failures: [string, string, Record<string, string | Uint8Array | (() => string)>, RegExp][] = [
    ['no SKILL.md', 'refunds', { 'README.md': 'x' }, /^Skill refunds: a skill must contain a SKILL\.md file at its root$/],
    ['no frontmatter', 'refunds', { 'SKILL.md': '# Refunds' }, /^Skill refunds\/SKILL\.md: SKILL\.md must begin with YAML frontmatter/],
    ['bad YAML', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: a: b') }, /^Skill refunds\/SKILL\.md: frontmatter line 3: a plain value/],
    ['missing name', 'refunds', { 'SKILL.md': skillMd('description: x') }, /frontmatter "name" must be a non-empty string \(it is required\)/],
    ['required fields through __proto__', 'refunds', { 'SKILL.md': skillMd('__proto__:\n  name: refunds\n  description: x') }, /frontmatter line 2: the key "__proto__" is refused/],
    ['name not a string', 'refunds', { 'SKILL.md': skillMd('name: 12\ndescription: x') }, /frontmatter "name" must be a non-empty string/],
    ['uppercase name', 'Refunds', { 'SKILL.md': skillMd('name: Refunds\ndescription: x') }, /name "Refunds" must be 1-64 lowercase letters/],
    ['leading hyphen', '-refunds', { 'SKILL.md': skillMd('name: -refunds\ndescription: x') }, /name "-refunds" must be 1-64/],
    ['trailing hyphen', 'refunds-', { 'SKILL.md': skillMd('name: refunds-\ndescription: x') }, /name "refunds-" must be 1-64/],
    ['double hyphen', 're--funds', { 'SKILL.md': skillMd('name: re--funds\ndescription: x') }, /twice in a row/],
    ['name over 64', 'a'.repeat(65), { 'SKILL.md': skillMd(`name: ${'a'.repeat(65)}\ndescription: x`) }, /longer than 64 characters/],
    ['name is not the directory', 'refunds', { 'SKILL.md': skillMd('name: returns\ndescription: x') }, /name "returns" must equal the skill's directory name "refunds"/],
    ['missing description', 'refunds', { 'SKILL.md': skillMd('name: refunds') }, /frontmatter "description" must be a non-empty string \(it is required\)/],
    ['empty description', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: ""') }, /"description" must be a non-empty string/],
    ['description over 1024', 'refunds', { 'SKILL.md': skillMd(`name: refunds\ndescription: ${'d'.repeat(1025)}`) }, /"description" is longer than 1024/],
    ['compatibility over 500', 'refunds', { 'SKILL.md': skillMd(`name: refunds\ndescription: x\ncompatibility: ${'c'.repeat(501)}`) }, /"compatibility" is longer than 500/],
    ['metadata not a mapping', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: x\nmetadata: text') }, /"metadata" must be a mapping/],
    ['metadata value not a string', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: x\nmetadata:\n  version: 2') }, /metadata "version" must be a string/],
    ['reserved metadata prefix', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: x\nmetadata:\n  io.modelcontextprotocol/x: "y"') },
      /metadata key "io\.modelcontextprotocol\/x" uses the prefix io\.modelcontextprotocol\/, reserved/],
    ['allowed-tools not a string', 'refunds', { 'SKILL.md': skillMd('name: refunds\ndescription: x\nallowed-tools:\n  - Bash') }, /"allowed-tools" must be a space-separated string/],
    ['bad path segment', 'acme corp/refunds', { 'SKILL.md': valid }, /the skill path segment "acme corp"/],
    ['.. as a path segment', '../refunds', { 'SKILL.md': valid }, /the skill path segment "\.\."/],
    ['file path with ..', 'refunds', { 'SKILL.md': valid, '../secret.md': 'x' }, /the file path "\.\.\/secret\.md" must be relative/],
    ['absolute file path', 'refunds', { 'SKILL.md': valid, '/etc/passwd': 'x' }, /the file path "\/etc\/passwd" must be relative/],
    ['backslash file path', 'refunds', { 'SKILL.md': valid, 'a\\..\\b': 'x' }, /must be relative/],
    ['dynamic SKILL.md', 'refunds', { 'SKILL.md': () => valid }, /SKILL\.md must be text or bytes/],
    ['SKILL.md not UTF-8', 'refunds', { 'SKILL.md': new Uint8Array([0x2d, 0xff, 0xfe]) }, /SKILL\.md must be valid UTF-8/],
  ];
  for (const [rule, path, files, error] of failures) {
    it(rule, async () => {
      await expect(register(path, files)).rejects.toThrow(error);
    });
  }

  it(`more than ${MAX_SKILL_FILES} files is refused`, async () => {
    const files: Record<string, string> = { 'SKILL.md': valid };
    for (let i = 1; i < MAX_SKILL_FILES; i++) files[`f${i}.md`] = 'x';
    await expect(register('refunds', files)).resolves.toBeInstanceOf(MiniMCP); // exactly the limit is served
    files.extra = 'x';
    await expect(register('refunds', files)).rejects.toThrow(`Skill refunds: more than ${MAX_SKILL_FILES} files`);
  });

  it('more than 16 MiB in all is refused', async () => {
    const half = new Uint8Array(MAX_SKILL_BYTES / 2);
    await expect(register('refunds', { 'SKILL.md': valid, 'a.bin': half, 'b.bin': half })).rejects.toThrow(`Skill refunds: more than ${MAX_SKILL_BYTES} bytes`);
  });
});

describe('the frontmatter block', () => {
  it('ends only at a line of its own: "---" at the end of a value is part of the value', async () => {
    const mcp = await new MiniMCP({ name: 's', version: '1' }).skill({ path: 'a', files: { 'SKILL.md': '---\nname: a\ndescription: before---\n---\nbody' } });
    const reply = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'skills/get', params: { uri: 'skill://a/SKILL.md' } })) as any;
    expect(reply.result.skill.frontmatter).toEqual({ name: 'a', description: 'before---' });
  });

  it('a value going on over several lines without a block scalar is refused with a hint', () => {
    expect(() => parseFrontmatter('description: first\n  second')).toThrow('line 2: unexpected indentation (a value that goes on over several lines must be a block scalar');
  });
});
