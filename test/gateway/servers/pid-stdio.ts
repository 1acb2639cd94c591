/** A stdio server with state of its own: which process answers, and a value it remembers. */
import { MiniMCP, ProtocolError } from '../../../src/index.js';
import { serveStdio } from '../../../src/transports/stdio.js';

let remembered = '';
const mcp = new MiniMCP({ name: 'pid-stdio', version: '1.0.0' });
mcp.tool('pid', { description: 'The process id' }, () => String(process.pid));
mcp.tool('remember', { description: 'Keeps a value', input: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } }, ({ value }) => {
  remembered = String(value);
  return 'kept';
});
mcp.tool('recall', { description: 'The kept value' }, () => remembered || '(nothing)');
mcp.tool('big', { input: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] } }, ({ size }) => 'x'.repeat(Number(size)));
mcp.resource('memo://note', { mimeType: 'text/plain' }, () => remembered || '(nothing)');
mcp.tool('touch', { description: 'Tells subscribers memo://note changed' }, () => {
  mcp.notifyResourceUpdated('memo://note');
  return 'touched';
});
mcp.tool('slow', { task: 'optional' }, async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  return 'slow done';
});
// Upstream tasks of their own (the caller takes tasks): a tool error, a protocol error, two questions at once.
mcp.tool('task_tool_error', { task: 'required' }, async (_args, ctx) => {
  await ctx.task();
  throw new Error('simulated tool error');
});
mcp.tool('task_protocol_error', { task: 'optional' }, async (_args, ctx) => {
  await ctx.task();
  throw new ProtocolError(-32603, 'simulated protocol failure');
});
mcp.tool('task_two_questions', { task: 'optional' }, async (_args, ctx) => {
  await ctx.task();
  const form = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
  const [a, b] = await Promise.all([
    ctx.elicit({ message: 'First?', requestedSchema: form }, { key: 'first' }),
    ctx.elicit({ message: 'Second?', requestedSchema: form }, { key: 'second' }),
  ]);
  return `first=${String(a.content?.name)}, second=${String(b.content?.name)}`;
});
// A plain MRTR round first, then a task of its own: the caller must see the round, then the task.
mcp.tool('task_after_question', { task: 'required' }, async (_args, ctx) => {
  const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }, { key: 'name' });
  await ctx.task();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return `hello ${String(answer.content?.name)}`;
});
// A task that runs until cancelled; how many such tasks were cancelled here.
let cancelledTasks = 0;
mcp.tool('task_until_cancelled', { task: 'required' }, async (_args, ctx) => {
  await ctx.task();
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  cancelledTasks++;
  return 'cancelled';
});
mcp.tool('cancelled_tasks', {}, () => String(cancelledTasks));
mcp.tool('hang', { description: 'Never answers' }, () => new Promise(() => {}));
serveStdio(mcp);
