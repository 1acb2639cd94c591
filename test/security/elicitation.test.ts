/**
 * Finding 6 (elicitation): an accepted answer is checked against the requestedSchema the server sent,
 * in both eras; a mismatch rejects ctx.elicit() with a clear -32602 the handler can catch.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, type Connection } from '../../src/index.js';
import { modernMeta } from '../fuzz/support/messages.js';

const requestedSchema = { type: 'object', properties: { decision: { type: 'string', enum: ['approve', 'deny'] } }, required: ['decision'] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function server() {
  const mcp = new MiniMCP({ name: 'sec', version: '1', onError: () => {} });
  mcp.tool('deploy', {}, async (_args, ctx) => {
    try {
      const answer = await ctx.elicit({ message: 'Deploy?', requestedSchema }, { key: 'confirm' });
      return `got ${JSON.stringify(answer.content ?? null)}`;
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  });
  return mcp;
}
const text = (reply: any) => reply.result.content[0].text as string;
const MISMATCH = 'refused: The elicitation answer does not match the requested schema: decision: Instance does not match any of ["approve","deny"].';

describe('elicitation answers', () => {
  it('2026 (MRTR): an answer outside the enum is refused to the handler; a valid one and a decline pass', async () => {
    const mcp = server();
    const call = (answer: object) => mcp.handle({
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'deploy', arguments: {}, inputResponses: { confirm: answer }, _meta: modernMeta({ elicitation: {} }) },
    });
    expect(text(await call({ action: 'accept', content: { decision: 'rm -rf /' } }))).toBe(MISMATCH);
    expect(text(await call({ action: 'accept', content: {} }))).toMatch(/^refused: The elicitation answer does not match the requested schema: /);
    expect(text(await call({ action: 'accept', content: { decision: 'approve' } }))).toBe('got {"decision":"approve"}');
    expect(text(await call({ action: 'decline' }))).toBe('got null');
  });

  it('2025 (a client response on the session): the same check', async () => {
    const mcp = server();
    const connection: Connection = { id: 'c1' };
    await mcp.handle({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } }, { connection });
    const sent: any[] = [];
    const pending = mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deploy', arguments: {} } }, { connection, send: (m) => sent.push(m) });
    await sleep(5);
    await mcp.dispatch({ jsonrpc: '2.0', id: sent[0].id, result: { action: 'accept', content: { decision: 'rm -rf /' } } }, { connection });
    expect(text((await pending).reply)).toBe(MISMATCH);
  });
});
