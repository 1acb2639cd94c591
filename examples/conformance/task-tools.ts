/**
 * The task tools the suite's `tasks-*` scenarios call (SEP-2663, and 2025 SEP-1686 for 2025 clients).
 * A tool registered with `task` runs the same handler code either way: for a client that takes tasks
 * the call becomes a task, `ctx.elicit()` then waits in it (`input_required`, answered by
 * `tasks/update`), and `tasks/cancel` aborts `ctx.signal`.
 */
import { ProtocolError, type MiniMCP } from '../../src/index.js';

/** A timer as a promise, ended early by `signal`; web APIs only, so the fixture also runs on Workers. */
function sleep<T = undefined>(ms: number, value?: T, options?: { signal?: AbortSignal }): Promise<T> {
  return new Promise((resolve, reject) => {
    const signal = options?.signal;
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value as T);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const confirmForm = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Confirm the action' } },
  required: ['confirm'],
} as const;

export function registerTaskTools(mcp: MiniMCP): void {
  mcp.tool('greet', {
    description: 'Greets someone (never a task)',
    input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  }, (args) => `Hello, ${String(args.name)}!`);

  // `seconds: 0` answers at once: a synchronous result stays a plain result even for a task client.
  mcp.tool('slow_compute', {
    description: 'Sleeps for the given number of seconds, then answers (a task for clients that take tasks)',
    input: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
    task: 'optional',
  }, (args, ctx) => {
    const seconds = Number(args.seconds ?? 1);
    const done = `Computed ${String(args.label ?? 'result')} after ${seconds}s`;
    return seconds === 0 ? done : sleep(seconds * 1000, done, { signal: ctx.signal });
  });

  mcp.tool('failing_job', { description: 'Runs for a moment, then reports a tool error', task: 'required' }, async () => {
    await sleep(500);
    throw new Error('The job failed: simulated tool error');
  });

  // A ProtocolError reaches the client as a JSON-RPC error and fails the task; any other throw (McpError included) is the tool's own isError result.
  mcp.tool('protocol_error_job', { description: 'Fails with a protocol error', task: 'optional' }, async () => {
    await sleep(200);
    throw new ProtocolError(-32603, 'Simulated internal failure');
  });

  mcp.tool('confirm_delete', {
    description: 'Asks for confirmation, then deletes (pretend)',
    input: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    task: 'optional',
  }, async (args, ctx) => {
    await ctx.task(); // a task before asking: the question waits in it
    const answer = await ctx.elicit({ message: `Delete ${String(args.filename)}?`, requestedSchema: confirmForm });
    const yes = answer.action === 'accept' && answer.content?.confirm === true;
    return yes ? `Deleted ${String(args.filename)}` : `Kept ${String(args.filename)}`;
  });

  mcp.tool('multi_input', { description: 'Asks two questions at once', task: 'optional' }, async (_args, ctx) => {
    await ctx.task();
    const form = {
      type: 'object',
      properties: { name: { type: 'string' }, confirm: { type: 'boolean' } },
      required: ['name'],
    } as const;
    const [first, second] = await Promise.all([
      ctx.elicit({ message: 'First input', requestedSchema: form }, { key: 'first' }),
      ctx.elicit({ message: 'Second input', requestedSchema: form }, { key: 'second' }),
    ]);
    return `first=${String(first.content?.name)}, second=${String(second.content?.name)}`;
  });

  // MRTR first (a plain input_required round), then a task: the call becomes one once the handler waits.
  mcp.tool('test_tool_with_task', { description: 'Gathers a name by MRTR, then works as a task', task: 'required' }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    }, { key: 'user_name' });
    await ctx.task();
    await sleep(200, undefined, { signal: ctx.signal });
    return `Hello, ${String(answer.content?.name ?? 'unknown')}! (from a task)`;
  });
}
