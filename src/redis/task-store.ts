/**
 * Tasks on Redis: any instance reads, updates and cancels a task whose handler runs on another one.
 * Every check-and-write is one Lua script (task-scripts.ts), so status moves are compare-and-set
 * and the per-principal cap holds across instances. Every write publishes the task on one channel;
 * each instance hands it to its local watchers (the running handler's cancel and input, a 2025
 * `tasks/result` waiting, 2026 listen streams). The running handler's progress and logs go out on
 * the same channel, to the 2025 `tasks/result` streams open on any instance. Keys (under the prefix) live as long as the task:
 *
 *   task:<id>          hash: the record (result, error as JSON text), PEXPIRE = the task's TTL
 *   task:<id>:in       hash: outstanding input requests by key (while input_required)
 *   task:<id>:out      hash: answers not yet taken by the handler
 *   tasks-live:<p>     sorted set: principal p's live tasks (the cap), scored by expiry
 *   tasks-of:<p>       sorted set: all of p's tasks (2025 tasks/list), scored by expiry
 *   tasks-expiry       sorted set: every task, scored by expiry (the sweep that gives back what it kept)
 *   task-kept          hash: <id> the characters a finished task's result and error keep, <id>:p its principal
 *   tasks-ledger[:<p>] the bounds ledger (ledger-lua.ts): tasks (count, the caps) and their characters (size), in all and per principal
 *   task-owner:<inst>  the instance's heartbeat lease: when it runs out, its live tasks read as failed
 */
import { serializeMessage, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { tooLarge, type CancelOutcome, type TaskBounds, type TaskEnd, type TaskInputRequest, type TaskMessages, type TaskPage, type TaskRecord, type TaskStore } from '../state/task-store.js';
import type { Link } from './connection.js';
import { SCRIPTS, type ScriptName } from './task-scripts.js';
import { addToKeyedSet, callEach } from '../state/keyed-sets.js';

/** A task hash as a script returns it: strings, with the inputs and answers as hashes of JSON text. */
interface Snapshot {
  doc: string;
  status: TaskRecord['status'];
  lastUpdatedAt: string;
  statusMessage?: string;
  result?: string;
  error?: string;
  cancel?: string;
  in: Record<string, string>;
  out: Record<string, string>;
}

const parseAll = <T>(texts: Record<string, string>): Record<string, T> =>
  Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, JSON.parse(text) as T]));

/** The record a snapshot stands for (a fresh object each time: watchers may keep it). */
function toRecord(text: string): TaskRecord {
  const snap = JSON.parse(text) as Snapshot;
  const task: TaskRecord = { ...JSON.parse(snap.doc), status: snap.status, lastUpdatedAt: snap.lastUpdatedAt };
  if (snap.statusMessage !== undefined) task.statusMessage = snap.statusMessage;
  if (snap.result !== undefined) task.result = JSON.parse(snap.result);
  if (snap.error !== undefined) task.error = JSON.parse(snap.error);
  if (snap.cancel !== undefined) task.cancelRequested = true;
  // cjson writes an empty hash as {} (never []), so these are always objects.
  if (Object.keys(snap.in).length > 0) task.inputRequests = parseAll<TaskInputRequest>(snap.in);
  if (Object.keys(snap.out).length > 0) task.inputResponses = parseAll<unknown>(snap.out);
  return task;
}

/** Marks a task's relayed notification on the channel (a snapshot starts with `{`). */
const MESSAGE_MARK = '!';

const pairs = (entries: Record<string, unknown>): string[] => Object.entries(entries).flatMap(([key, value]) => [key, JSON.stringify(value)]);

export class RedisTaskStore implements TaskStore {
  readonly #watchers = new Map<string, Set<(task: TaskRecord) => void>>();
  /** The `tasks/result` streams open here, by task. */
  readonly #streams = new Map<string, Set<(message: JsonRpcMessage) => void>>();
  readonly #shas = new Map<ScriptName, string>();
  readonly #channel: string;

  constructor(private readonly link: Link) {
    this.#channel = `${link.prefix}tasks`;
  }

  /**
   * A running task's notifications go out on the same channel as its writes, from the same
   * connection, so a `tasks/result` stream on any instance gets its progress before its end.
   */
  readonly messages: TaskMessages = {
    publish: (taskId, message) => {
      const text = serializeMessage(message);
      if (text === undefined) return; // unserializable: dropped, as a stream would drop it
      this.link.commands.publish(this.#channel, `${taskId}\n${MESSAGE_MARK}${text}`).catch((error: unknown) => this.link.failed('task messages', error));
    },
    listen: (taskId, on) => addToKeyedSet(this.#streams, taskId, on),
  };

  /** Subscribes to task writes and messages (every instance, this one included, delivers what it receives). */
  async start(): Promise<void> {
    await this.link.subscriber.subscribe(this.#channel, (message) => {
      const cut = message.indexOf('\n'); // "<taskId>\n<snapshot>" or "<taskId>\n!<message>"
      if (cut <= 0) return;
      const taskId = message.slice(0, cut);
      if (message[cut + 1] === MESSAGE_MARK) return this.#deliver(this.#streams.get(taskId), message.slice(cut + 2));
      const watchers = this.#watchers.get(taskId);
      if (!watchers) return; // not watched here: not even parsed
      for (const on of [...watchers]) on(toRecord(message.slice(cut + 1)));
    });
  }

  #deliver(streams: Set<(message: JsonRpcMessage) => void> | undefined, text: string): void {
    if (!streams) return; // no stream waits here: not even parsed
    callEach([...streams], JSON.parse(text) as JsonRpcMessage);
  }

  /** Runs a script by its hash, loading it on the first use and again after a Redis restart (NOSCRIPT). */
  async #run(name: ScriptName, args: (string | number)[], withClock = true): Promise<unknown> {
    const now = Date.now();
    const argv = (withClock ? [this.link.prefix, now, new Date(now).toISOString(), ...args] : [this.link.prefix, ...args]).map(String);
    const commands = this.link.commands;
    let sha = this.#shas.get(name);
    if (sha !== undefined) {
      try {
        return await commands.evalSha(sha, { arguments: argv });
      } catch (error) {
        if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      }
    }
    sha = String(await commands.scriptLoad(SCRIPTS[name]));
    this.#shas.set(name, sha);
    return commands.evalSha(sha, { arguments: argv });
  }

  async create(task: TaskRecord, bounds: number | Partial<TaskBounds> = {}): Promise<boolean | 'maxTasks'> {
    const { maxPerPrincipal = 0, maxTasks = 0 } = typeof bounds === 'number' ? { maxPerPrincipal: bounds } : bounds;
    const { taskId, principal, owner, status, expiresAt, protocolVersion, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = task;
    // What never changes, as one JSON text; the status and what moves with it are hash fields.
    const doc = JSON.stringify({ taskId, principal, protocolVersion, createdAt, ttlMs, pollIntervalMs, expiresAt, owner });
    const ttl = Math.max(1, expiresAt - Date.now());
    const created = await this.#run('create', [taskId, principal, owner, doc, status, ttl, expiresAt, maxPerPrincipal, lastUpdatedAt, maxTasks]);
    return created === 'maxTasks' ? created : created === 1;
  }

  async get(taskId: string, principal: string): Promise<TaskRecord | undefined> {
    const text = await this.#run('get', [taskId, principal]);
    return typeof text === 'string' ? toRecord(text) : undefined;
  }

  async list(principal: string, cursor?: string, limit = 50): Promise<TaskPage | undefined> {
    const reply = await this.#run('list', [principal, cursor ?? '', limit]);
    if (!Array.isArray(reply)) return undefined; // the cursor names no task of this principal (or it expired)
    const more = reply.pop() === '1';
    const tasks = (reply as string[]).map(toRecord);
    const last = tasks.at(-1);
    return more && last ? { tasks, nextCursor: last.taskId } : { tasks };
  }

  async live(principal: string): Promise<number> {
    return Number(await this.#run('live', [principal]));
  }

  async note(taskId: string, statusMessage: string): Promise<void> {
    await this.#run('note', [taskId, statusMessage]);
  }

  async ask(taskId: string, requests: Record<string, TaskInputRequest>): Promise<void> {
    await this.#run('ask', [taskId, ...pairs(requests as Record<string, unknown>)]);
  }

  async take(taskId: string, key: string): Promise<{ value: unknown } | undefined> {
    const text = await this.#run('take', [taskId, key], false);
    return typeof text === 'string' ? { value: JSON.parse(text) } : undefined;
  }

  async answer(taskId: string, principal: string, responses: Record<string, unknown>): Promise<boolean> {
    return (await this.#run('answer', [taskId, principal, ...pairs(responses)])) === 1;
  }

  /** The byte bounds are checked in the script (a refused end is kept as the failure naming the bound). */
  async settle(taskId: string, end: TaskEnd, bounds: Partial<TaskBounds> = {}): Promise<boolean | keyof TaskBounds> {
    const fields = ['status', end.status];
    if (end.statusMessage !== undefined) fields.push('statusMessage', end.statusMessage);
    let size = 0;
    for (const [name, value] of [['result', end.result], ['error', end.error]] as const) {
      if (value === undefined) continue;
      const text = JSON.stringify(value);
      size += text.length;
      fields.push(name, text);
    }
    let passed: keyof TaskBounds | undefined;
    if (bounds.maxResultChars !== undefined && size > bounds.maxResultChars) passed = 'maxResultChars';
    else {
      const kept = await this.#run('settle', [taskId, size, bounds.maxStoredCharsPerPrincipal ?? 0, bounds.maxStoredChars ?? 0, ...fields]);
      if (typeof kept !== 'string') return kept === 1;
      passed = kept as keyof TaskBounds;
    }
    return (await this.settle(taskId, tooLarge(passed, bounds[passed]!))) && passed;
  }

  async cancel(taskId: string, principal: string, reason = 'The task was cancelled.'): Promise<CancelOutcome> {
    const [outcome, text] = (await this.#run('cancel', [taskId, principal, reason])) as [string, string | undefined];
    if (outcome === 'unknown' || text === undefined) return { outcome: 'unknown' };
    return { outcome: outcome as 'cancelled' | 'terminal', task: toRecord(text) };
  }

  /** The lease is relative (PX), so instances' clocks need not agree. */
  async beat(owner: string, untilMs: number): Promise<void> {
    await this.link.commands.set(`${this.link.prefix}task-owner:${owner}`, '1', { PX: Math.max(1, untilMs - Date.now()) });
  }

  watch(taskId: string, on: (task: TaskRecord) => void): () => void {
    return addToKeyedSet(this.#watchers, taskId, on);
  }
}
