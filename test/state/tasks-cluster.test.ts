/**
 * Tasks across a cluster (issues 14 and 15): 3 instances as separate processes on a real Redis,
 * behind real nginx with round-robin, no affinity and no retry. A task created through the balancer
 * is read, answered, cancelled, awaited and watched from the instances that do not run it (the tests
 * find the one that does, and talk to the others directly), and fails when its instance is killed.
 * 2025 through the official SDK v1 client's task API; 2026 over raw HTTP (the official v2 client has
 * no tasks extension). TASKS_STORE=memory runs the same members with tasks kept per process.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterAvailable, startCluster, type Balancer, type Cluster, type Member } from './support/cluster.js';
import { initialize, messages, post, request, sleep, sseReader } from './support/http.js';

const available = clusterAvailable();
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ENTRY = fileURLToPath(new URL('./support/task-member.ts', import.meta.url));
const EXT = 'io.modelcontextprotocol/tasks';
const RELATED = 'io.modelcontextprotocol/related-task';
const HEARTBEAT_MS = 200;
const CAP = 3;
const LOST = 'The task was lost: the server instance running it stopped.';

let nextId = 1;

/** One 2026 request as `user` (the x-user header is the principal); the JSON-RPC answer (the last SSE message, if a stream). */
async function modern(url: string, user: string, method: string, params: Record<string, unknown>, name?: string): Promise<any> {
  const capabilities = { elicitation: {}, extensions: { [EXT]: {} } };
  const body = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities } } };
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'x-user': user };
  if (name !== undefined) headers['mcp-name'] = name;
  const response = await post(url, body, headers);
  const text = await response.text();
  return response.headers.get('content-type')?.includes('text/event-stream') ? messages(text).at(-1) : JSON.parse(text);
}

const getTask = (url: string, user: string, taskId: string) => modern(url, user, 'tasks/get', { taskId }, taskId);

/** Polls `read` until `done` holds (a 502 from a killed member through the balancer is skipped). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; last: ${JSON.stringify(value)}`);
    await sleep(25);
  }
}

async function connectV1(url: string, user: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'tasks-cluster', version: '1' }, { capabilities: { tasks: { list: {}, cancel: {} } } });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers: { 'x-user': user } } }));
  return client;
}

describe.skipIf(!available)('tasks across 3 instances (Redis, nginx round-robin)', () => {
  let members: Member[] = [];
  let lb: Balancer;
  const prefix = `tc${process.pid}:`;

  let cluster: Cluster | undefined;

  beforeAll(async () => {
    const env = { MINIMCP_SECRET: SECRET, MINIMCP_REDIS_PREFIX: prefix, TASKS_HEARTBEAT_MS: String(HEARTBEAT_MS), TASKS_MAX: String(CAP) };
    cluster = await startCluster({ script: ENTRY, env });
    ({ members, balancer: lb } = cluster);
  }, 120_000);
  afterAll(async () => {
    // A member still running a task (when a test failed) may not drain: it gets 5 s, then SIGKILL.
    await Promise.all(members.map((m) => Promise.race([m.stop(), sleep(5_000).then(() => m.kill())])));
    await cluster?.stop();
  }, 30_000);

  /** What one member reports about itself (asked directly, not through the balancer). */
  async function where(member: Member): Promise<{ pid: number; running: string[]; aborted: string[] }> {
    const answer = await modern(member.url, 'probe', 'tools/call', { name: 'where', arguments: {} }, 'where');
    return JSON.parse(answer.result.content[0].text);
  }

  /** The member whose handler runs `label`, and the other two. */
  async function split(label: string): Promise<{ owner: Member; others: Member[] }> {
    const owner = await until(async () => {
      for (const member of members) if ((await where(member)).running.includes(label)) return member;
      return undefined;
    }, (m) => m !== undefined);
    return { owner: owner!, others: members.filter((m) => m !== owner) };
  }

  it('2026: a task created through the balancer reads the same on every instance; another principal gets -32602 on each', async () => {
    const created = (await modern(lb.url, 'ann', 'tools/call', { name: 'work', arguments: { label: 'read-1' } }, 'work')).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const { owner, others } = await split('read-1');
    for (const member of [...others, owner]) {
      const task = (await getTask(member.url, 'ann', created.taskId)).result;
      expect(task).toMatchObject({ taskId: created.taskId, status: 'working', createdAt: created.createdAt, ttlMs: created.ttlMs });
      expect((await getTask(member.url, 'mallory', created.taskId)).error).toMatchObject({ code: -32602, message: `Unknown task: '${created.taskId}'` });
    }
    await modern(others[0]!.url, 'ann', 'tasks/cancel', { taskId: created.taskId }, created.taskId);
  }, 30_000);

  it('2026: tasks/update on another instance reaches the ctx.elicit() waiting on the instance that runs the task', async () => {
    const created = (await modern(lb.url, 'bea', 'tools/call', { name: 'ask', arguments: { label: 'ask-1' } }, 'ask')).result;
    expect(created).toMatchObject({ resultType: 'task' });
    const [first, second, third] = members;
    const waiting = (await until(() => getTask(first!.url, 'bea', created.taskId), (a) => a.result?.status === 'input_required')).result;
    const [key, input] = Object.entries(waiting.inputRequests as Record<string, any>)[0]!;
    expect(input.method).toBe('elicitation/create');
    const ownerPid = Number(/on (\d+)\)/.exec(input.params.message)![1]);
    const [answerer, reader] = [first!, second!, third!].filter((m) => m.pid !== ownerPid);
    expect((await modern(answerer!.url, 'bea', 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } } }, created.taskId)).result).toEqual({ resultType: 'complete' });
    const done = await until(() => getTask(reader!.url, 'bea', created.taskId), (a) => a.result?.status === 'completed');
    expect(done.result.result.content).toEqual([{ type: 'text', text: `hello Ada from ${ownerPid}` }]);
  }, 30_000);

  it('2026: tasks/cancel on another instance aborts the handler\'s ctx.signal on the instance that runs it', async () => {
    const created = (await modern(lb.url, 'cid', 'tools/call', { name: 'work', arguments: { label: 'cancel-1' } }, 'work')).result;
    const { owner, others } = await split('cancel-1');
    expect((await modern(others[0]!.url, 'cid', 'tasks/cancel', { taskId: created.taskId }, created.taskId)).result).toEqual({ resultType: 'complete' });
    const seen = await until(() => where(owner), (w) => w.aborted.includes('cancel-1'));
    expect(seen.running).not.toContain('cancel-1');
    expect((await getTask(others[1]!.url, 'cid', created.taskId)).result).toMatchObject({ status: 'cancelled' });
  }, 30_000);

  it('2026: notifications/tasks reach a listen stream on an instance that neither runs nor updates the task', async () => {
    const created = (await modern(lb.url, 'dee', 'tools/call', { name: 'ask', arguments: { label: 'listen-1' } }, 'ask')).result;
    const waiting = (await until(() => getTask(lb.url, 'dee', created.taskId), (a) => a.result?.status === 'input_required')).result;
    const [key, input] = Object.entries(waiting.inputRequests as Record<string, any>)[0]!;
    const ownerPid = Number(/on (\d+)\)/.exec(input.params.message)![1]);
    const [listener, answerer] = members.filter((m) => m.pid !== ownerPid);
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } } };
    const controller = new AbortController();
    const stream = sseReader(await post(listener!.url, { jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params: { notifications: { taskIds: [created.taskId] }, _meta: meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen', 'x-user': 'dee' }, controller.signal));
    await stream.until((t) => t.includes('acknowledged')); // the watch starts with the stream, before its own read of the task
    await modern(answerer!.url, 'dee', 'tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { name: 'Lin' } } } }, created.taskId);
    const text = await stream.until((t) => t.includes('"completed"'));
    controller.abort();
    const notes = messages(text).filter((m) => m.method === 'notifications/tasks').map((m) => m.params);
    expect(notes.every((n) => n.taskId === created.taskId)).toBe(true);
    expect(notes.map((n) => n.status)).toEqual(['working', 'completed']);
    expect(notes.at(-1).result.content).toEqual([{ type: 'text', text: `hello Lin from ${ownerPid}` }]);
  }, 30_000);

  it('2025 (SDK v1): tasks/result on another instance waits until the task ends and returns exactly its result; get and list there too, only for the owner', async () => {
    const creator = await connectV1(lb.url, 'eve');
    const created = await creator.request({ method: 'tools/call', params: { name: 'work', arguments: { label: 'result-1', ms: 1_500 }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    const { owner, others } = await split('result-1');
    const [waiter, lister] = await Promise.all([connectV1(others[0]!.url, 'eve'), connectV1(others[1]!.url, 'eve')]);
    expect(await waiter.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working', ttl: 60_000 });
    const result = await waiter.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result).toEqual({
      content: [{ type: 'text', text: `worked result-1 on ${owner.pid}` }],
      structuredContent: { label: 'result-1', pid: owner.pid, rows: [] },
      _meta: { [RELATED]: { taskId } },
    });
    expect(await lister.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
    expect((await lister.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
    const stranger = await connectV1(others[1]!.url, 'frank');
    expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);
    await expect(stranger.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
    await Promise.all([creator, waiter, lister, stranger].map((c) => c.close()));
  }, 30_000);

  it('2025: a task\'s progress and logs reach a tasks/result stream on another instance, each once, in order, before its result', async () => {
    const creator = await connectV1(lb.url, 'jay');
    const created = await creator.request({ method: 'tools/call', params: { name: 'chatty', arguments: { label: 'chatty-1' }, task: { ttl: 60_000 }, _meta: { progressToken: 'tok-1' } } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    const { owner, others } = await split('chatty-1');
    const session = await initialize(others[0]!.url, {}, { 'x-user': 'jay' });
    const stream = sseReader(await post(others[0]!.url, request('tasks/result', { taskId }), { ...session, 'x-user': 'jay' }));
    await stream.until((t) => (t.match(/"notifications\/progress"/g) ?? []).length >= 3);
    expect((await modern(owner.url, 'probe', 'tools/call', { name: 'release', arguments: { label: 'chatty-1' } }, 'release')).result.content[0].text).toBe('released');
    const all = messages(await stream.until(() => stream.state.done, 10_000)); // the stream ends with the result
    const related = { [RELATED]: { taskId } };
    const progress = all.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    const steps = progress.map((p) => p.progress as number);
    // From the step the stream opened at to the last: every one, once, in order (none lost or repeated on the way).
    expect(steps).toEqual(Array.from({ length: steps.length }, (_, i) => steps[0]! + i));
    expect(progress.every((p) => p.progressToken === 'tok-1' && p.message === `step ${p.progress}` && JSON.stringify(p._meta) === JSON.stringify(related))).toBe(true);
    const logs = all.filter((m) => m.method === 'notifications/message').map((m) => m.params);
    expect(logs.map((l) => l.data)).toEqual(steps.map((step) => `chatty-1 step ${step} on ${owner.pid}`));
    expect(all.at(-1)).toMatchObject({ result: { content: [{ type: 'text', text: `chatted chatty-1 on ${owner.pid}` }] } });
    await creator.close();
  }, 30_000);

  it('2025 (SDK v1): tasks/cancel on another instance stops the handler where it runs; a second cancel is -32602', async () => {
    const creator = await connectV1(lb.url, 'gus');
    const created = await creator.request({ method: 'tools/call', params: { name: 'work', arguments: { label: 'cancel-2' }, task: {} } }, CreateTaskResultSchema);
    const { owner, others } = await split('cancel-2');
    const canceller = await connectV1(others[0]!.url, 'gus');
    expect(await canceller.experimental.tasks.cancelTask(created.task.taskId)).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    await until(() => where(owner), (w) => w.aborted.includes('cancel-2'));
    await expect(canceller.experimental.tasks.cancelTask(created.task.taskId)).rejects.toMatchObject({ code: -32602 });
    await Promise.all([creator, canceller].map((c) => c.close()));
  }, 30_000);

  it(`the cap of ${CAP} kept tasks per principal holds across the cluster: ${CAP * 2} calls through the balancer at once, ${CAP} tasks`, async () => {
    const answers = await Promise.all(Array.from({ length: CAP * 2 }, (_, i) => modern(lb.url, 'hal', 'tools/call', { name: 'work', arguments: { label: `cap-${i}` } }, 'work')));
    const tasks = answers.filter((a) => a.result?.resultType === 'task');
    expect(tasks).toHaveLength(CAP);
    for (const refused of answers.filter((a) => a.error)) expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining('Too many tasks'), data: { bound: 'maxPerPrincipal' } });
    // The refused calls' handlers had started (2026 becomes a task at the handler's first await): each was stopped.
    const refusedLabels = answers.flatMap((a, i) => (a.error ? [`cap-${i}`] : []));
    const stopped = async () => (await Promise.all(members.map(where))).flatMap((w) => w.aborted);
    await until(stopped, (all) => refusedLabels.every((label) => all.includes(label)));
    for (const task of tasks) await modern(lb.url, 'hal', 'tasks/cancel', { taskId: task.result.taskId }, task.result.taskId);
  }, 30_000);

  // Last: it kills a member.
  it('an instance killed (SIGKILL) while running a task: the others read it failed once the heartbeat runs out, and a waiting tasks/result ends', async () => {
    const creator = await connectV1(lb.url, 'ivy');
    const created = await creator.request({ method: 'tools/call', params: { name: 'work', arguments: { label: 'kill-1' }, task: {} } }, CreateTaskResultSchema);
    const taskId = created.task.taskId;
    const { owner, others } = await split('kill-1');
    const waiter = await connectV1(others[0]!.url, 'ivy');
    const waiting = waiter.experimental.tasks.getTaskResult(taskId, CallToolResultSchema).then(() => 'result', (error: { code?: number; message?: string }) => error);
    expect((await getTask(others[1]!.url, 'ivy', taskId)).result.status).toBe('working');
    owner.child.kill('SIGKILL');
    const failed = await until(() => getTask(others[1]!.url, 'ivy', taskId), (a) => a.result?.status !== 'working');
    expect(failed.result).toMatchObject({ status: 'failed', statusMessage: LOST, error: { code: -32603, message: LOST } });
    expect(await waiting).toMatchObject({ code: -32603, message: expect.stringContaining(LOST) });
    expect((await getTask(others[0]!.url, 'ivy', taskId)).result.status).toBe('failed');
    await waiter.close();
    await creator.close().catch(() => {});
  }, 30_000);
});
