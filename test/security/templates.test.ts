/**
 * Finding 7 (templates): NUL never reaches a template variable, `safeJoin` keeps decoded variables
 * inside a root, and `resources/read` refuses URIs past 8 KiB before any template sees them.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, safeJoin } from '../../src/index.js';

function server() {
  const names: string[] = [];
  const mcp = new MiniMCP({ name: 'sec', version: '1', onError: () => {} });
  mcp.resourceTemplate('file:///{name}', {}, (uri, vars) => {
    names.push(String(vars.name));
    return safeJoin('/srv/files', String(vars.name)) ?? null; // null: not found
  });
  mcp.resourceTemplate('x:///{+path}', {}, (uri, vars) => safeJoin('/srv/files', String(vars.path)) ?? null);
  const read = (uri: string) => mcp.handle({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }) as Promise<any>;
  return { read, names };
}

describe('template variables', () => {
  it('a variable holding NUL (%00) matches nothing: the reader never sees it', async () => {
    const { read, names } = server();
    expect((await read('file:///passwd%00.png')).error).toMatchObject({ code: -32602 });
    expect(names).toEqual([]);
    expect((await read('file:///report.txt')).result.contents[0].text).toBe('/srv/files/report.txt');
  });

  it('safeJoin refuses every way out of the root, through both operators', async () => {
    const { read } = server();
    for (const uri of ['file:///..%2F..%2Fetc%2Fpasswd', 'file:///%2Fetc%2Fpasswd', 'file:///..%5C..%5Cwin.ini', 'x:///../../etc/passwd', 'x:///a/../../b', 'x:///C:%5Cwindows']) {
      expect((await read(uri)).error, uri).toMatchObject({ code: -32602 });
    }
    expect((await read('x:///docs/./a.txt')).result.contents[0].text).toBe('/srv/files/docs/a.txt');
    expect(safeJoin('/srv/', 'a//b')).toBe('/srv/a/b');
    expect(safeJoin('/srv', '')).toBe('/srv');
    expect(safeJoin('/srv', 'a\u0000b')).toBeUndefined();
  });
});

describe('URI length', () => {
  it('a URI longer than 8 KiB is refused before matching; one within it is read', async () => {
    const { read } = server();
    expect((await read(`file:///${'a'.repeat(8_200)}`)).error).toMatchObject({ code: -32602, message: 'Resource not found: the URI is longer than 8192 characters' });
    expect((await read(`file:///${'a'.repeat(8_000)}`)).result.contents).toHaveLength(1);
  });
});
