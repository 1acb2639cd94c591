/**
 * The server the cluster task tests run as each member (test/state/support/task-member.ts): task tools
 * that work until stopped, ask the client, and report which instance runs or stopped them.
 */
import { MiniMCP, type MiniMCPOptions } from '../../../src/index.js';

export function createTaskServer(options: Partial<MiniMCPOptions<{ principal: string }>> = {}) {
  const mcp = new MiniMCP<{ principal: string }>({ name: 'tasks', version: '1', onError: () => {}, ...options });
  const running = new Set<string>();
  const aborted: string[] = [];
  mcp.tool('work', { description: 'works for ms (default: until stopped); reports the instance', task: 'optional' }, async (args, ctx) => {
    const label = String(args.label);
    running.add(label);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, Number(args.ms ?? 3_600_000));
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), aborted.push(label), reject(new Error('stopped'))), { once: true });
      });
    } finally {
      running.delete(label);
    }
    return { content: [{ type: 'text', text: `worked ${label} on ${process.pid}` }], structuredContent: { label, pid: process.pid, rows: [] } };
  });
  mcp.tool('ask', { description: 'elicits a name in the task (not by MRTR); the question names the instance', task: 'optional' }, async (args, ctx) => {
    await ctx.task();
    const answer = await ctx.elicit({ message: `name? (${String(args.label)} on ${process.pid})`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return `hello ${String(answer.content?.name)} from ${process.pid}`;
  });
  const gates = new Map<string, () => void>();
  mcp.tool('chatty', { description: 'until released: a progress notification and a log every gapMs; reports the instance', task: 'optional' }, async (args, ctx) => {
    const label = String(args.label);
    running.add(label);
    let released = false;
    gates.set(label, () => (released = true));
    try {
      for (let step = 1; !released && !ctx.signal.aborted; step++) {
        ctx.progress(step, undefined, `step ${step}`);
        ctx.log('info', `${label} step ${step} on ${process.pid}`);
        await new Promise((r) => setTimeout(r, Number(args.gapMs ?? 50)));
      }
    } finally {
      running.delete(label);
      gates.delete(label);
    }
    return `chatted ${label} on ${process.pid}`;
  });
  mcp.tool('release', { description: 'ends the chatty task of this label on this instance' }, (args) => {
    const release = gates.get(String(args.label));
    release?.();
    return release ? 'released' : 'unknown';
  });
  mcp.tool('where', { description: 'this instance: its pid, the task tools running and stopped here' }, () => ({
    content: [{ type: 'text', text: JSON.stringify({ pid: process.pid, running: [...running], aborted }) }],
  }));
  return mcp;
}
