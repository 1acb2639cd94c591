import { describe, it, expect } from 'vitest';
import { canonicalUri, parseUriTemplate } from '../../src/primitives/uri-template.js';

const match = (template: string, uri: string) => parseUriTemplate(template).match(uri);

describe('parseUriTemplate: basics', () => {
  it('keeps the template text and lists variables in order of appearance', () => {
    const t = parseUriTemplate('x://{a}/{+b}{/c*}{?d,e}{&f}{#g}');
    expect(t.template).toBe('x://{a}/{+b}{/c*}{?d,e}{&f}{#g}');
    expect(t.variables).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('matches a template without expressions only on the exact (canonical) URI', () => {
    const t = parseUriTemplate('config://app/settings');
    expect(t.variables).toEqual([]);
    expect(t.match('config://app/settings')).toEqual({});
    expect(t.match('CONFIG://APP/settings')).toEqual({});
    expect(t.match('config://app/settings/')).toBeUndefined();
    expect(t.match('config://app/Settings')).toBeUndefined();
  });
});

describe('MCP examples', () => {
  it('test://template/{id}/data', () => {
    const t = parseUriTemplate('test://template/{id}/data');
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/abc%20def/data')).toEqual({ id: 'abc def' });
    expect(t.match('test://template/123/other')).toBeUndefined();
    expect(t.match('test://template//data')).toBeUndefined();
    expect(t.match('test://template/1/2/data')).toBeUndefined();
    expect(t.match('test://template/123/data/')).toBeUndefined();
  });

  it('math://tables/{n}', () => {
    const t = parseUriTemplate('math://tables/{n}');
    expect(t.match('math://tables/7')).toEqual({ n: '7' });
    expect(t.match('math://tables/12')).toEqual({ n: '12' });
    expect(t.match('math://tables/')).toBeUndefined();
    expect(t.match('math://tables/7/8')).toBeUndefined();
    expect(t.match('math://table/7')).toBeUndefined();
  });

  it('file:///{+path}', () => {
    const t = parseUriTemplate('file:///{+path}');
    expect(t.match('file:///home/user/notes.txt')).toEqual({ path: 'home/user/notes.txt' });
    expect(t.match('file:///home/user/my%20notes%2Ev2.txt')).toEqual({ path: 'home/user/my notes.v2.txt' });
    expect(t.match('file:///')).toBeUndefined();
    expect(t.match('file://host/x')).toBeUndefined();
  });
});

describe('operators', () => {
  it('simple {x}: one or more characters, not / ? #, commas allowed', () => {
    expect(match('x://item/{id}', 'x://item/a,b')).toEqual({ id: 'a,b' });
    expect(match('x://item/{id}', 'x://item/a.b;c=d&e')).toEqual({ id: 'a.b;c=d&e' });
    expect(match('x://item/{id}', 'x://item/a/b')).toBeUndefined();
    expect(match('x://item/{id}', 'x://item/a?b')).toBeUndefined();
    expect(match('x://item/{id}', 'x://item/a#b')).toBeUndefined();
    expect(match('x://item/{id}', 'x://item/')).toBeUndefined();
  });

  it('reserved {+x}: may contain / and reserved characters', () => {
    expect(match('x://r/{+rest}', 'x://r/a/b/c')).toEqual({ rest: 'a/b/c' });
    expect(match('x://r/{+rest}', 'x://r/a:b@c!d')).toEqual({ rest: 'a:b@c!d' });
    // The later variable cannot hold '/', so the split is forced.
    expect(match('x://{+a}/{b}/c', 'x://p/q/r/c')).toEqual({ a: 'p/q', b: 'r' });
    expect(match('x://{+a}/end', 'x://p/q/end')).toEqual({ a: 'p/q' });
    expect(match('x://{+a}/end', 'x://p/q/ending')).toBeUndefined();
  });

  it('fragment {#x}: optional, may contain / and ,', () => {
    const t = parseUriTemplate('x://doc{#section}');
    expect(t.match('x://doc#intro/part,2')).toEqual({ section: 'intro/part,2' });
    expect(t.match('x://doc')).toEqual({});
    expect(t.match('x://doc#')).toBeUndefined();
    expect(t.match('x://docs')).toBeUndefined();
  });

  it('label {.x}: one label; the preceding variable keeps the rest', () => {
    expect(match('x://f/{name}{.ext}', 'x://f/archive.tar.gz')).toEqual({ name: 'archive.tar', ext: 'gz' });
    expect(match('x://f/{name}{.ext}', 'x://f/README')).toEqual({ name: 'README' });
    expect(match('x://host{.domain*}', 'x://host.example.com')).toEqual({ domain: ['example', 'com'] });
  });

  it('path segment {/x} and explode {/x*}', () => {
    const one = parseUriTemplate('x://api{/version}/items');
    expect(one.match('x://api/v2/items')).toEqual({ version: 'v2' });
    expect(one.match('x://api/items')).toEqual({});
    expect(one.match('x://api/v2/v3/items')).toBeUndefined();

    const many = parseUriTemplate('x://files{/path*}');
    expect(many.match('x://files/a/b/c')).toEqual({ path: ['a', 'b', 'c'] });
    expect(many.match('x://files/only')).toEqual({ path: ['only'] });
    expect(many.match('x://files/a%2Fb/c')).toEqual({ path: ['a/b', 'c'] });
    expect(many.match('x://files')).toEqual({});

    expect(match('x://r{/a,b}', 'x://r/1/2')).toEqual({ a: '1', b: '2' });
    expect(match('x://r{/a,b}', 'x://r/1')).toEqual({ a: '1' });
    expect(match('x://r{/a,b}', 'x://r/1/2/3')).toBeUndefined();
    // Left to right, an optional expression is filled before the next one.
    expect(match('x://r{/a}{/b}', 'x://r/1')).toEqual({ a: '1' });
    expect(match('x://r{/a}{/b}', 'x://r/1/2')).toEqual({ a: '1', b: '2' });
  });

  it('path-style parameters {;x,y}', () => {
    const t = parseUriTemplate('x://map{;lat,long}');
    expect(t.match('x://map;lat=1.5;long=-2')).toEqual({ lat: '1.5', long: '-2' });
    expect(t.match('x://map;long=-2;lat=1.5')).toEqual({ lat: '1.5', long: '-2' });
    expect(t.match('x://map;lat')).toEqual({ lat: '' });
    expect(t.match('x://map')).toEqual({});
  });

  it('query {?a,b}: any order, missing ones absent, unknown ones ignored', () => {
    const t = parseUriTemplate('x://search{?q,limit}');
    expect(t.match('x://search?q=cats&limit=10')).toEqual({ q: 'cats', limit: '10' });
    expect(t.match('x://search?limit=10&q=cats')).toEqual({ q: 'cats', limit: '10' });
    expect(t.match('x://search?limit=10')).toEqual({ limit: '10' });
    expect(t.match('x://search')).toEqual({});
    expect(t.match('x://search?q=a%26b%3Dc&utm_source=x&junk')).toEqual({ q: 'a&b=c' });
    expect(t.match('x://search?q=')).toEqual({ q: '' });
    expect(t.match('x://search?q')).toEqual({ q: '' });
    expect(t.match('x://search?q=a+b')).toEqual({ q: 'a+b' }); // '+' is not a space in RFC 3986
    expect(t.match('x://searching?q=a')).toBeUndefined();
  });

  it('query: a repeated scalar parameter does not match, an exploded one collects', () => {
    expect(match('x://s{?q}', 'x://s?q=a&q=b')).toBeUndefined();
    expect(match('x://s{?tag*}', 'x://s?tag=a&tag=b%20c')).toEqual({ tag: ['a', 'b c'] });
    expect(match('x://s{?tag*}', 'x://s?tag=a')).toEqual({ tag: ['a'] });
  });

  it('query after a reserved path keeps the path clean', () => {
    const t = parseUriTemplate('file:///{+path}{?rev}');
    expect(t.match('file:///a/b.txt?rev=3')).toEqual({ path: 'a/b.txt', rev: '3' });
    expect(t.match('file:///a/b.txt?other=1')).toEqual({ path: 'a/b.txt' });
    expect(t.match('file:///a/b.txt')).toEqual({ path: 'a/b.txt' });
  });

  it('query continuation {&x}, alone and merged with a preceding {?x}', () => {
    const cont = parseUriTemplate('x://s?fixed=1{&page,size}');
    expect(cont.match('x://s?fixed=1&size=5&page=2')).toEqual({ page: '2', size: '5' });
    expect(cont.match('x://s?fixed=1')).toEqual({});
    expect(cont.match('x://s?fixed=2&page=2')).toBeUndefined();

    const merged = parseUriTemplate('x://s{?a}{&b}');
    expect(merged.match('x://s?b=2&a=1')).toEqual({ a: '1', b: '2' });
    expect(merged.match('x://s?a=1&b=2')).toEqual({ a: '1', b: '2' });
  });

  it('several variables in one expression {x,y}', () => {
    const t = parseUriTemplate('x://size/{w,h}');
    expect(t.match('x://size/1024,768')).toEqual({ w: '1024', h: '768' });
    expect(t.match('x://size/1024')).toEqual({ w: '1024' });
    // The last variable takes what is left, as a list expanded into it would look.
    expect(t.match('x://size/1,2,3')).toEqual({ w: '1', h: '2,3' });
    expect(match('x://a/{x,y}/b', 'x://a/p%2Cq,r/b')).toEqual({ x: 'p,q', y: 'r' });
  });

  it('explode on a simple list {x*}', () => {
    expect(match('x://l/{items*}', 'x://l/a,b,c')).toEqual({ items: ['a', 'b', 'c'] });
    expect(match('x://l/{items*}', 'x://l/a%2Cb')).toEqual({ items: ['a,b'] });
  });

  it('prefix {x:3}: at most 3 characters after decoding', () => {
    const t = parseUriTemplate('x://p/{x:3}');
    expect(t.match('x://p/abc')).toEqual({ x: 'abc' });
    expect(t.match('x://p/ab')).toEqual({ x: 'ab' });
    expect(t.match('x://p/abcd')).toBeUndefined();
    expect(t.match('x://p/%C3%A9t%C3%A9')).toEqual({ x: 'été' });
    expect(match('x://p/{x:1}/{x2}', 'x://p/u/user')).toEqual({ x: 'u', x2: 'user' });
  });
});

describe('percent-decoding', () => {
  it('decodes %20 and multi-byte UTF-8', () => {
    expect(match('x://n/{name}', 'x://n/hello%20world')).toEqual({ name: 'hello world' });
    expect(match('x://n/{name}', 'x://n/caf%C3%A9')).toEqual({ name: 'café' });
    expect(match('x://n/{name}', 'x://n/caf%c3%a9')).toEqual({ name: 'café' });
    expect(match('x://n/{name}', 'x://n/%F0%9F%98%80')).toEqual({ name: '😀' });
    expect(match('x://n/{name}', 'x://n/a%2Fb')).toEqual({ name: 'a/b' });
  });

  it('invalid percent sequences give no match and never throw', () => {
    for (const bad of ['%', '%zz', 'a%2', '%E9', '%C3', '%C3%28', '%ED%A0%80']) {
      expect(() => match('x://n/{name}', `x://n/${bad}`)).not.toThrow();
      expect(match('x://n/{name}', `x://n/${bad}`)).toBeUndefined();
    }
    expect(match('x://s{?q}', 'x://s?q=%zz')).toBeUndefined();
    // Unknown parameters are not decoded, so their encoding does not matter.
    expect(match('x://s{?q}', 'x://s?q=1&other=%zz')).toEqual({ q: '1' });
  });
});

describe('canonicalUri', () => {
  it('uppercases percent-encoding and decodes unreserved characters', () => {
    expect(canonicalUri('x://a/b%2fc')).toBe('x://a/b%2Fc');
    expect(canonicalUri('x://a/%7euser/%41%62%2D%2E%5F')).toBe('x://a/~user/Ab-._');
    expect(canonicalUri('x://a/%c3%a9')).toBe('x://a/%C3%A9');
    expect(canonicalUri('x://a/%20%25')).toBe('x://a/%20%25');
  });

  it('lowercases the scheme, and the host of hierarchical URIs only', () => {
    expect(canonicalUri('HTTP://Example.COM:8080/Path?Q=A#F')).toBe('http://example.com:8080/Path?Q=A#F');
    expect(canonicalUri('HTTP://User:PW@Example.COM/')).toBe('http://User:PW@example.com/');
    expect(canonicalUri('URN:ISBN:ABC')).toBe('urn:ISBN:ABC');
    expect(canonicalUri('File:///Home/X')).toBe('file:///Home/X');
    expect(canonicalUri('x://HOST%2fA')).toBe('x://host%2Fa'); // the triplet stays uppercase
    expect(canonicalUri('relative/Path')).toBe('relative/Path');
  });

  it('leaves malformed percent sequences alone and never throws', () => {
    expect(canonicalUri('x://a/100%')).toBe('x://a/100%');
    expect(canonicalUri('x://a/%zz%4')).toBe('x://a/%zz%4');
    expect(canonicalUri('x://A%zB/')).toBe('x://a%zb/');
    expect(canonicalUri('\uD800%')).toBe('\uD800%');
    expect(canonicalUri('')).toBe('');
  });

  it('is applied to both the template and the URI when matching', () => {
    const t = parseUriTemplate('Test://Example.com/%7Eu/{id}');
    expect(t.match('test://EXAMPLE.COM/~u/%31%32')).toEqual({ id: '12' });
    expect(t.match('TEST://example.com/%7eu/7')).toEqual({ id: '7' });
    expect(t.match('test://example.com/~U/7')).toBeUndefined();
  });

  it('lowercases host text after a variable in the template too, but not the path, nor a value', () => {
    // Issue 26 item 2: a variable's value keeps its case, wherever it sits (it was 'acme' and 'host/a/b').
    const host = parseUriTemplate('x://{tenant}.Example.COM/Docs/{id}');
    expect(host.match('X://Acme.EXAMPLE.com/Docs/1')).toEqual({ tenant: 'Acme', id: '1' });
    expect(host.match('x://acme.example.com/docs/1')).toBeUndefined();
    const path = parseUriTemplate('data://{+path}.JSON');
    expect(path.match('data://Host/a/b.JSON')).toEqual({ path: 'Host/a/b' });
    expect(path.match('data://host/a/b.json')).toBeUndefined();
  });

  it('keeps the case of variables in the first segment after scheme:// (issue 26 item 2)', () => {
    expect(parseUriTemplate('users://{userId}').match('users://Alice')).toEqual({ userId: 'Alice' });
    expect(parseUriTemplate('github://{owner}/{repo}').match('GitHub://Anthropic/X')).toEqual({ owner: 'Anthropic', repo: 'X' });
    expect(parseUriTemplate('x://{a}%2f{b}').match('x://A%2FB')).toEqual({ a: 'A', b: 'B' });
  });
});

describe('malformed templates', () => {
  const cases: [string, RegExp][] = [
    ['x://{id', /unclosed '\{' at index 4/],
    ['x://{a{b}', /unclosed '\{' at index 4/],
    ['x://a}b', /unmatched '\}' at index 5/],
    ['x://{}', /empty expression at index 4/],
    ['x://{+}', /has no variable/],
    ['x://{a b}', /invalid variable name "a b"/],
    ['x://{a,}', /invalid variable name ""/],
    ['x://{.a..b}', /invalid variable name "a..b"/],
    ['x://{a-b}', /invalid variable name "a-b"/],
    ['x://{=a}', /unsupported operator '='/],
    ['x://{!a}', /unsupported operator '!'/],
    ['x://{|a}', /unsupported operator '\|'/],
    ['x://{a:0}', /invalid prefix length in "a:0"/],
    ['x://{a:10000}', /invalid prefix length/],
    ['x://{a:x}', /invalid prefix length/],
    ['x://{a:3*}', /combines a prefix and explode/],
  ];
  for (const [template, message] of cases) {
    it(`rejects ${template}`, () => {
      expect(() => parseUriTemplate(template)).toThrow(message);
      expect(() => parseUriTemplate(template)).toThrow(/^Invalid URI template "/);
    });
  }

  it('accepts a repeated name; matching requires its occurrences to agree', () => {
    const t = parseUriTemplate('x://u{/name:1,name}/x/{name}');
    expect(t.variables).toEqual(['name']);
    expect(t.expand({ name: 'alice' })).toBe('x://u/a/alice/x/alice');
    expect(t.match('x://u/a/alice/x/alice')).toEqual({ name: 'alice' });
    expect(t.match('x://u/b/alice/x/alice')).toBeUndefined();
    expect(t.match('x://u/a/alice/x/alicia')).toBeUndefined();
    expect(match('x://{id}/{id:2}', 'x://abc/ab')).toEqual({ id: 'abc' });
    expect(match('x://{id}/{id:2}', 'x://abc/ac')).toBeUndefined();
  });

  it('accepts dotted and percent-encoded variable names', () => {
    expect(parseUriTemplate('x://{a.b,c%20d,_1}').variables).toEqual(['a.b', 'c%20d', '_1']);
  });
});

describe('expand (RFC 6570 section 3.2 examples)', () => {
  const values = {
    var: 'value',
    hello: 'Hello World!',
    path: '/foo/bar',
    list: ['red', 'green', 'blue'],
    x: '1024',
    y: '768',
    empty: '',
    emptyList: [],
  };
  const cases: [string, string][] = [
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{x,y}', '1024,768'],
    ['{var:3}', 'val'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{#x,hello}', '#1024,Hello%20World!'],
    ['{undef}{?undef2}{/emptyList}', ''],
    ['{/var:1,var}', '/v/value'],
    ['{?undef,x}', '?x=1024'],
  ];
  for (const [template, expected] of cases) {
    it(`${template} -> ${expected}`, () => {
      expect(parseUriTemplate(template).expand(values)).toBe(expected);
    });
  }

  it('stringifies numbers and booleans, encodes UTF-8, never throws on lone surrogates', () => {
    const t = parseUriTemplate('x://{n}/{b}/{s}');
    expect(t.expand({ n: 42, b: true, s: 'é/😀' })).toBe('x://42/true/%C3%A9%2F%F0%9F%98%80');
    expect(t.expand({ n: 0, b: false, s: '\uD800' })).toBe('x://0/false/%EF%BF%BD');
  });

  it('reserved expansion keeps existing %XX triplets but encodes a stray %', () => {
    const t = parseUriTemplate('{+v}');
    expect(t.expand({ v: '50%25 off' })).toBe('50%25%20off');
    expect(t.expand({ v: '100%' })).toBe('100%25');
    expect(parseUriTemplate('{v}').expand({ v: '50%25' })).toBe('50%2525');
  });

  it('prefix counts code points, not UTF-16 units', () => {
    expect(parseUriTemplate('{v:2}').expand({ v: '😀😀😀' })).toBe('%F0%9F%98%80%F0%9F%98%80');
  });
});

describe('expand then match gives the values back', () => {
  const cases: [string, Record<string, string | string[]>][] = [
    ['test://template/{id}/data', { id: 'a b/c?d#e,f%' }],
    ['file:///{+path}', { path: 'dir/sub dir/café.txt' }],
    ['x://f/{name}{.ext}', { name: 'my.file', ext: 'txt' }],
    ['x://files{/path*}', { path: ['a b', 'c/d', 'é'] }],
    ['x://api{/version}/items{?q,limit,tags*}', { version: 'v1', q: 'x&y=z', limit: '10', tags: ['a', 'b c'] }],
    ['x://map{;lat,long}', { lat: '1.5', long: '' }],
    ['x://size/{w,h}', { w: '1,2', h: '3' }],
    ['x://doc{#section}', { section: 'intro/part 1' }],
    ['x://l/{items*}', { items: ['a,b', 'c'] }],
    ['x://s?fixed=1{&page}', { page: '2' }],
    ['x://n/{x:3}', { x: 'été' }],
  ];
  for (const [template, values] of cases) {
    it(template, () => {
      const t = parseUriTemplate(template);
      expect(t.match(t.expand(values))).toEqual(values);
    });
  }

  it('with optional parts left out', () => {
    const t = parseUriTemplate('x://api{/version}/items{?q,limit}');
    expect(t.expand({ limit: '5' })).toBe('x://api/items?limit=5');
    expect(t.match(t.expand({ limit: '5' }))).toEqual({ limit: '5' });
  });
});

describe('specificity', () => {
  it('prefers more literal characters, then restricted variables over reserved ones', () => {
    const templates = [
      'test://{+rest}',
      'test://template/{id}/data',
      'test://template/{+rest}',
      'test://template/{id}/{+x}',
    ].map((t) => parseUriTemplate(t));
    const uri = 'test://template/123/data';
    const winners = templates
      .filter((t) => t.match(uri) !== undefined)
      .sort((a, b) => b.specificity - a.specificity)
      .map((t) => t.template);
    expect(winners).toEqual([
      'test://template/{id}/data',
      'test://template/{id}/{+x}',
      'test://template/{+rest}',
      'test://{+rest}',
    ]);
  });

  it('breaks a tie on literals in favour of {x} over {+x}', () => {
    expect(parseUriTemplate('a://b/{x}').specificity).toBeGreaterThan(parseUriTemplate('a://b/{+x}').specificity);
    expect(parseUriTemplate('a://b/{x}').specificity).toBeLessThan(parseUriTemplate('a://b/c{+x}').specificity);
  });
});

describe('hostile input', () => {
  const long = 'a'.repeat(200_000);

  it('matches or rejects 200k-character URIs without backtracking blow-up', () => {
    // Each of these would be a catastrophic case for a naive regex translation.
    expect(match('x://{+a}{+b}{+c}b', `x://${long}`)).toBeUndefined();
    expect(match('x://{+a}{+b}{+c}b', `x://${long}b`)).toEqual({ a: 'a', b: 'a', c: long.slice(2) });
    expect(match('x://{+a}/{b}/c{#d}', `x://${long}`)).toBeUndefined();
    expect(match('test://template/{id}/data', `test://template/${long}/dat`)).toBeUndefined();
    expect(match('test://template/{id}/data', `test://template/${long}/data`)).toEqual({ id: long });
    expect(match('file:///{+path}', `file:///${long}`)).toEqual({ path: long });
    expect(match('x://{a}{b}{.c}{/d*}{?e}', `x://${long}`)).toEqual({ a: 'a', b: long.slice(1) });
  });

  it('copes with long runs of separators', () => {
    expect(match('x://s{?q}', `x://s?${'&'.repeat(200_000)}q=1`)).toEqual({ q: '1' });
    expect(match('x://f{/p*}', `x://f${'/'.repeat(100_000)}`)).toEqual({ p: new Array<string>(100_000).fill('') });
    expect(match('x://n/{name}', `x://n/${'%'.repeat(100_000)}`)).toBeUndefined();
  });
});
