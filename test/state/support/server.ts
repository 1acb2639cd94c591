/**
 * The server the state tests run, in-process or as a cluster member (test/state/support/member.ts):
 * tools that raise changes, log at two levels, stream in steps, ask the client (elicit, sample, roots),
 * and wait to be cancelled.
 */
import { MiniMCP, type MiniMCPOptions } from '../../../src/index.js';
import { z } from 'zod';

export function createStateServer(options: Partial<MiniMCPOptions> = {}) {
  const mcp = new MiniMCP({ name: 'state', version: '1', onError: () => {}, ...options });
  const seen = { cancelled: [] as string[], finished: [] as string[] };
  mcp.resource('mem://a', { name: 'a' }, () => 'a');
  mcp.resource('mem://b', { name: 'b' }, () => 'b');
  mcp.tool('touch', { description: 'raises resources/updated for each uri, in order', input: z.object({ uris: z.array(z.string()) }) }, ({ uris }) => {
    for (const uri of uris) mcp.notifyResourceUpdated(uri);
    return `touched ${uris.length}`;
  });
  mcp.tool('add-tool', { description: 'adds a tool (tools/list_changed)', input: z.object({ name: z.string() }) }, ({ name }) => {
    mcp.tool(name, { description: 'added at run time' }, () => name);
    return `added ${name}`;
  });
  mcp.tool('logs', { description: 'logs info then warning' }, async (_a, ctx) => {
    ctx.log('info', 'an info line');
    ctx.log('warning', 'a warning line');
    return 'logged';
  });
  mcp.tool('steps', { description: 'progress, a pause, progress, a pause, a result', input: z.object({ pauseMs: z.number() }) }, async ({ pauseMs }, ctx) => {
    ctx.progress(1);
    await new Promise((r) => setTimeout(r, pauseMs));
    ctx.progress(2);
    await new Promise((r) => setTimeout(r, pauseMs));
    return ctx.signal.aborted ? 'aborted' : 'all steps done';
  });
  mcp.tool('ask', { description: 'elicits a name' }, async (_a, ctx) => {
    ctx.progress(0); // opens the stream first
    const answer = await ctx.elicit({ message: 'your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.name)} (${answer.action}) from ${process.pid}`;
  });
  mcp.tool('sample', { description: 'asks the client model; says which instance waited' }, async (_a, ctx) => {
    ctx.progress(0); // opens the stream first
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'a number?' } }], maxTokens: 5 });
    const content = answer.content as { text?: string };
    return `sampled ${String(content.text)} from ${process.pid}`;
  });
  mcp.tool('roots', { description: 'lists the client roots; says which instance waited' }, async (_a, ctx) => {
    ctx.progress(0);
    const { roots } = await ctx.listRoots();
    return `roots ${roots.map((r) => r.uri).join(',')} from ${process.pid}`;
  });
  mcp.tool('wait', { description: 'waits until cancelled', input: z.object({ tag: z.string() }) }, async ({ tag }, ctx) => {
    ctx.progress(0, undefined, `pid ${process.pid}`); // opens the stream, and says which instance runs it
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.cancelled.push(tag);
    return 'cancelled';
  });
  mcp.tool('seen', { description: 'what this instance saw cancelled' }, () => ({ content: [{ type: 'text', text: JSON.stringify({ pid: process.pid, ...seen }) }] }));
  mcp.tool('pid', { description: 'which instance answered' }, () => String(process.pid));
  return { mcp, seen };
}
