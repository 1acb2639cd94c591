/**
 * Under a verified token the rate budget belongs to the token (its iss + sub), not to the refined
 * principal: a `principal` option that refines by something the client picks (a tenant header) must
 * not hand one token a fresh budget per name. Isolation still uses the refined principal.
 */
import { describe, expect, it } from 'vitest';
import { McpError, MiniMCP } from '../../src/index.js';
import { createTestClient, type TestEra } from '../../src/testing/index.js';

type Scope = { team: string };

describe.each<TestEra>(['2025-11-25', '2026-07-28'])('rate limits under a token (%s)', (era) => {
  const server = () => {
    const mcp = new MiniMCP<Scope>({
      name: 'rl',
      version: '1',
      onError: () => {},
      principal: (scope) => scope?.team ?? '',
      rateLimit: { requestsPerSecond: 1, requestBurst: 4 },
    });
    mcp.tool('echo', {}, () => 'ok');
    return mcp;
  };

  it('one token naming many teams shares one budget; another token has its own', async () => {
    const mcp = server();
    const outcomes: string[] = [];
    for (const team of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const client = createTestClient(mcp, { era, scope: { team }, auth: { subject: 'mallory', scopes: [] } });
      try {
        await client.connect();
        await client.callTool('echo');
        outcomes.push('ok');
      } catch (error) {
        outcomes.push(error instanceof McpError && /Too Many Requests/.test(error.message) ? '429' : String(error));
      }
    }
    expect(outcomes).toContain('429');
    const other = createTestClient(mcp, { era, scope: { team: 'a' }, auth: { subject: 'alice', scopes: [] } });
    await other.connect();
    expect((await other.callTool('echo')).content).toEqual([{ type: 'text', text: 'ok' }]);
  });
});
