/**
 * The start-up check of a Server Card against the published schema: the extension's own fixtures,
 * cards broken one rule at a time (both must refuse, and ours names the field), and the documents a
 * server builds from its facts.
 */
import { describe, expect, it } from 'vitest';
import { cardProblem } from '../../src/transports/http/card/check.js';
import { buildCard, SERVED_VERSIONS } from '../../src/transports/http/card/document.js';
import { ServerCard } from '../../src/transports/http/card/server-card.js';
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from '../../src/protocol/versions.js';
import { exampleCards, schemaErrors } from '../support/server-card-schema.js';

const minimal = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
  name: 'io.github.acme/math',
  version: '1.0.0',
  description: 'Arithmetic.',
};
const remote = { type: 'streamable-http', url: 'https://mcp.example.com/mcp' };

describe('the extension fixtures', () => {
  it.each(exampleCards('valid'))('valid/%s passes the schema and the start-up check', (_name, card) => {
    expect(schemaErrors(card)).toEqual([]);
    expect(cardProblem(card)).toBeUndefined();
  });

  it.each(exampleCards('invalid'))('invalid/%s fails the schema and the start-up check', (_name, card) => {
    expect(schemaErrors(card)).not.toEqual([]);
    expect(cardProblem(card)).toMatch(/^(\$schema|name) /);
  });

  it('has fixtures at all (a copy that lost them would pass the loops above)', () => {
    expect(exampleCards('valid').length).toBeGreaterThanOrEqual(2);
    expect(exampleCards('invalid').length).toBeGreaterThanOrEqual(5);
  });
});

// Each case breaks one rule; the schema and the start-up check must both refuse, ours naming the field.
const broken: [string, Record<string, unknown>, RegExp][] = [
  ['a name with two slashes', { name: 'a/b/c' }, /^name must match/],
  ['a name too short', { name: 'a/' }, /^name must be at least 3/],
  ['a name too long', { name: `a/${'b'.repeat(199)}` }, /^name must be at most 200/],
  ['a version too long', { version: '1'.repeat(256) }, /^version must be at most 255/],
  ['no description', { description: undefined }, /^description is required/],
  ['an empty description', { description: '' }, /^description must be at least 1/],
  ['a description over 100 characters', { description: 'x'.repeat(101) }, /^description must be at most 100/],
  ['a title over 100 characters', { title: 'x'.repeat(101) }, /^title must be at most 100/],
  ['a website that is not a URI', { websiteUrl: 'example.com' }, /^websiteUrl must be an absolute URI/],
  ['a repository without source', { repository: { url: 'https://github.com/acme/math' } }, /^repository\.source is required/],
  ['an icon without src', { icons: [{ mimeType: 'image/png' }] }, /^icons\[0\]\.src is required/],
  ['an icon with another theme', { icons: [{ src: 'https://example.com/i.png', theme: 'blue' }] }, /^icons\[0\]\.theme must be one of/],
  ['a remote of another type', { remotes: [{ ...remote, type: 'websocket' }] }, /^remotes\[0\]\.type must be one of/],
  ['a remote URL without a scheme', { remotes: [{ ...remote, url: 'mcp.example.com/mcp' }] }, /^remotes\[0\]\.url must match/],
  ['a remote URL with a space', { remotes: [{ ...remote, url: 'https://mcp.example.com/m cp' }] }, /^remotes\[0\]\.url must match/],
  ['a header without a name', { remotes: [{ ...remote, headers: [{ isSecret: true }] }] }, /^remotes\[0\]\.headers\[0\]\.name is required/],
  ['a header variable with a bad format', { remotes: [{ ...remote, headers: [{ name: 'X', variables: { v: { format: 'date' } } }] }] }, /^remotes\[0\]\.headers\[0\]\.variables\.v\.format must be one of/],
  ['a URL variable that is not an object', { remotes: [{ ...remote, variables: { tenant: 'acme' } }] }, /^remotes\[0\]\.variables\.tenant must be an object/],
  ['versions that are not strings', { remotes: [{ ...remote, supportedProtocolVersions: [2025] }] }, /^remotes\[0\]\.supportedProtocolVersions\[0\] must be a string/],
  ['_meta that is not an object', { _meta: 'x' }, /^_meta must be an object/],
];

describe('one broken rule at a time', () => {
  it.each(broken)('%s: refused by the schema and named by the check', (_case, change, message) => {
    const card = JSON.parse(JSON.stringify({ ...minimal, ...change }));
    expect(schemaErrors(card)).not.toEqual([]);
    expect(cardProblem(card)).toMatch(message);
  });

  it('refuses a version range, which the schema describes but does not encode', () => {
    for (const range of ['^1.2.3', '~1.2.3', '>=1.2.3', '1.x', '1.*', '1.2.3 - 2.0.0']) {
      expect(cardProblem({ ...minimal, version: range })).toMatch(/^version must be one version, not a range/);
    }
    for (const version of ['1.0.2', '2.1.0-alpha', '2026.11.27', 'v3']) expect(cardProblem({ ...minimal, version })).toBeUndefined();
  });
});

describe('the card a server builds', () => {
  const info = { name: 'math', version: '3.1.4', title: 'Math', description: 'Arithmetic tools.', websiteUrl: 'https://example.com', icons: [{ src: 'https://example.com/i.png', sizes: ['48x48'] }] };

  it('takes version, title, website and icons from the server, the revisions from those served, and passes the schema', () => {
    const card = buildCard(info, { name: 'io.github.acme/math', headers: [{ name: 'Authorization', isRequired: true, isSecret: true }] }, 'https://mcp.example.com/mcp');
    expect(schemaErrors(card)).toEqual([]);
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'io.github.acme/math',
      version: '3.1.4',
      description: 'Arithmetic tools.',
      title: 'Math',
      websiteUrl: 'https://example.com',
      icons: info.icons,
      remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: [{ name: 'Authorization', isRequired: true, isSecret: true }], supportedProtocolVersions: SERVED_VERSIONS }],
    });
    expect(SERVED_VERSIONS).toEqual([...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS]);
  });

  it('throws at start-up naming the field and the rule', () => {
    expect(() => new ServerCard(info, { name: 'math' })).toThrow('HTTP option card: the Server Card is not valid: name must match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$ (namespace/name');
    expect(() => new ServerCard({ ...info, description: undefined }, { name: 'io.github.acme/math' })).toThrow('description is required');
    expect(() => new ServerCard({ ...info, title: 'T'.repeat(101) }, { name: 'io.github.acme/math' })).toThrow('title must be at most 100 characters (it has 101)');
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', url: 'mcp.example.com' })).toThrow('remotes[0].url must match');
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', headers: [{ name: 'X', format: 'date' as never }] })).toThrow('remotes[0].headers[0].format must be one of');
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', url: 'https://{tenant}.example.com/mcp' })).toThrow('card.url must be a URL the catalogs can point at');
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', publisher: 'not a domain' })).toThrow('card.publisher must be a domain name');
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', maxAgeSeconds: -1 })).toThrow('HTTP option card maxAgeSeconds');
    expect(() => new ServerCard(info, null as never)).toThrow('HTTP option card must be an object');
    // A template is fine once the catalogs are off.
    expect(() => new ServerCard(info, { name: 'io.github.acme/math', url: 'https://{tenant}.example.com/mcp', mcpCatalog: false, aiCatalog: false })).not.toThrow();
  });

  it('refuses a secret the card would publish: a literal credential header, a secret with a value or a default', () => {
    const name = 'io.github.acme/math';
    const refused: [object, string][] = [
      [{ headers: [{ name: 'Authorization', value: 'Bearer eyJhbGciOi' }] }, 'card.headers[0] (Authorization) has a literal value'],
      [{ headers: [{ name: 'X-Api-Key', value: 'k-123' }] }, 'card.headers[0] (X-Api-Key) has a literal value'],
      [{ headers: [{ name: 'X-Tenant-Key', isSecret: true, value: 'abc' }] }, 'card.headers[0] is secret but has a literal value'],
      [{ headers: [{ name: 'Authorization', value: 'Bearer {token}', variables: { token: { isSecret: true, default: 'abc' } } }] }, 'card.headers[0].variables.token is secret but has a default'],
      [{ variables: { key: { isSecret: true, default: 'abc' } } }, 'card.variables.key is secret but has a default'],
    ];
    for (const [change, message] of refused) expect(() => new ServerCard(info, { name, ...change }), message).toThrow(message);
    const described = { name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {token}', variables: { token: { isSecret: true, isRequired: true } } };
    expect(() => new ServerCard(info, { name, headers: [described, { name: 'X-Region', value: 'eu' }] })).not.toThrow();
  });

  it('builds the catalogs on the card URL, with urn:air identifiers from the reversed namespace', () => {
    const card = new ServerCard(info, { name: 'io.github.acme/math', url: 'https://mcp.example.com/mcp/?x=1' });
    const body = (kind: 'mcp-catalog' | 'ai-catalog') => JSON.parse(card.answer(kind, '/.well-known/x', undefined)!.document.body);
    expect(body('mcp-catalog')).toEqual({
      specVersion: 'draft',
      entries: [{ identifier: 'urn:air:acme.github.io:math', type: 'application/mcp-server-card+json', url: 'https://mcp.example.com/mcp/server-card' }],
    });
    expect(body('ai-catalog')).toEqual({
      specVersion: '1.0',
      entries: [{ identifier: 'urn:air:acme.github.io:mcp:math', type: 'application/mcp-server-card+json', url: 'https://mcp.example.com/mcp/server-card' }],
    });
  });

  it('without a URL, builds a remote only for loopback hosts, and never from any other Host', () => {
    const card = new ServerCard(info, { name: 'io.github.acme/math' });
    const remotesFor = (host: string | undefined) => JSON.parse(card.answer('card', '/api/mcp/server-card', host)!.document.body).remotes;
    expect(remotesFor('localhost:3000')[0].url).toBe('http://localhost:3000/api/mcp');
    expect(remotesFor('127.0.0.1')[0].url).toBe('http://127.0.0.1/api/mcp');
    expect(remotesFor('[::1]:8080')[0].url).toBe('http://[::1]:8080/api/mcp');
    for (const host of ['evil.example', 'localhost.evil.example', 'localhost:3000@evil.example', undefined]) expect(remotesFor(host)).toBeUndefined();
    expect(card.answer('ai-catalog', '/.well-known/ai-catalog.json', 'evil.example')).toBeUndefined();
  });

  it('matches only the enabled paths', () => {
    const card = new ServerCard(info, { name: 'io.github.acme/math', url: 'https://mcp.example.com/mcp', aiCatalog: false, wellKnownAlias: true });
    expect(card.kindOf('/mcp/server-card')).toBe('card');
    expect(card.kindOf('/.well-known/mcp/catalog.json')).toBe('mcp-catalog');
    expect(card.kindOf('/.well-known/ai-catalog.json')).toBeUndefined();
    expect(card.kindOf('/.well-known/mcp/server-card.json')).toBe('alias');
    expect(card.kindOf('/__proto__')).toBeUndefined();
    expect(card.kindOf('/mcp')).toBeUndefined();
    expect(new ServerCard(info, { name: 'io.github.acme/math' }).kindOf('/.well-known/mcp/server-card.json')).toBeUndefined();
  });
});
