/**
 * docs/guide.md, "When the resource does not exist": the template as the guide writes it answers a
 * missing row with -32602 `Resource not found` and `data.uri` in both eras (never -32002, never empty
 * contents), `undefined` means the same, and `isResourceNotFound()` recognises it.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, ResourceNotFoundError, UserError, isResourceNotFound } from '../../src/index.js';

const rows: Record<string, object> = { 'users/1': { name: 'Ada' } };
const db = { find: async (table: string, id: string) => rows[`${table}/${id}`] };

function server(): MiniMCP {
  const mcp = new MiniMCP({ name: 'guide', version: '1.0.0', onError: () => {} });
  // As in the guide.
  mcp.resourceTemplate('db://{table}/{id}', { name: 'row', mimeType: 'application/json' }, async (uri, { table, id }) => {
    const row = await db.find(table, id);
    if (row === undefined) throw new ResourceNotFoundError(uri);
    return JSON.stringify(row);
  });
  mcp.resourceTemplate('kv://{key}', { name: 'kv' }, (_uri, { key }) => (key === 'a' ? 'A' : undefined));
  mcp.resourceTemplate('shop://{sku}', { name: 'sku' }, () => {
    throw new UserError('The shop is closed on Sundays');
  });
  return mcp;
}

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const eras = { '2025-11-25': {}, '2026-07-28': { _meta: meta } };
const read = async (uri: string, extra: object) =>
  (await server().dispatch({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri, ...extra } })).reply as any;

describe.each(Object.entries(eras))('a template reader that finds nothing (%s)', (_era, extra) => {
  it('reads a row that exists', async () => {
    expect((await read('db://users/1', extra)).result.contents).toEqual([{ uri: 'db://users/1', mimeType: 'application/json', text: '{"name":"Ada"}' }]);
  });

  it('throws ResourceNotFoundError: -32602 "Resource not found" with data.uri, which isResourceNotFound recognises', async () => {
    const { error } = await read('db://users/9', extra);
    expect(error).toEqual({ code: -32602, message: 'Resource not found: db://users/9', data: { uri: 'db://users/9' } });
    expect(isResourceNotFound(error)).toBe(true);
  });

  it('returns undefined: the same answer', async () => {
    expect((await read('kv://b', extra)).error).toEqual({ code: -32602, message: 'Resource not found: kv://b', data: { uri: 'kv://b' } });
  });

  it('throws a UserError: -32603 with its message, not a not-found', async () => {
    const { error } = await read('shop://1', extra);
    expect(error).toMatchObject({ code: -32603, message: 'The shop is closed on Sundays' });
    expect(isResourceNotFound(error)).toBe(false);
  });
});
