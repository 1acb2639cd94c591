/**
 * Issue 36: an upstream's extension methods (skills: skills/list, skills/get) are forwarded under the
 * same capability, so the conformance fixture's skills read the same through the gateway as directly.
 */
import { afterAll, expect, it } from 'vitest';
import { createConformanceFixture } from '../../examples/conformance/fixture.js';
import type { Proxied } from '../../src/gateway/index.js';
import { MiniMCP } from '../../src/index.js';

const STDIO_FIXTURE = new URL('../../examples/conformance/stdio.ts', import.meta.url).pathname;
let proxied: Proxied | undefined;
afterAll(async () => {
  await proxied?.close();
});

it('skills/list and skills/get answer through the gateway as the upstream answers them, under the skills capability', async () => {
  const direct = createConformanceFixture();
  await direct.skills(new URL('../../examples/conformance/skills', import.meta.url));
  const gateway = new MiniMCP({ name: 'gateway', version: '1.0.0', onError: () => {} });
  proxied = await gateway.proxy({ stdio: [process.execPath, '--import', 'tsx', STDIO_FIXTURE], log: () => {} });
  const _meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const ask = async (mcp: MiniMCP, method: string, params: object = {}) => (await mcp.handle({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } })) as { result: Record<string, unknown> };
  // The 2026 shaping (resultType, cache hints) is each server's own; the skills are what must be equal.
  const strip = ({ result: { _meta: _m, resultType: _r, ttlMs: _t, cacheScope: _c, ...rest } }: { result: Record<string, unknown> }) => rest;
  const listed = strip(await ask(gateway, 'skills/list'));
  expect(listed).toEqual(strip(await ask(direct, 'skills/list')));
  const [first] = listed.skills as { uri: string }[];
  expect(strip(await ask(gateway, 'skills/get', { uri: first!.uri }))).toEqual(strip(await ask(direct, 'skills/get', { uri: first!.uri })));
  const discovered = await ask(gateway, 'server/discover');
  expect(Object.keys((discovered.result.capabilities as { extensions: object }).extensions)).toContain('io.modelcontextprotocol/skills');
}, 30_000);
