/**
 * What happens when a client reaches a bound on what it may make the server keep (subscriptions,
 * session state, tasks, streams): a clear error naming the option, logged once per principal and
 * bound, and never an eviction of another principal's state (docs/security.md, "The memory model").
 */
import { ErrorCode, McpError } from '../protocol/errors.js';

/**
 * A bound was reached. -32602 for a bound of the caller's own (its session, its principal), -32603
 * for a process-wide one; `data.bound` names the option, so an operator can find it. One answered
 * 503 (with Retry-After: waiting helps) names it in its message only, as other overload answers do.
 */
export class BoundReached extends McpError {
  constructor(
    readonly bound: string,
    readonly principal: string,
    message: string,
    code: number = ErrorCode.InvalidParams,
    httpStatus?: number,
  ) {
    super(code, message, httpStatus === undefined ? { bound } : undefined, httpStatus);
    this.name = 'BoundReached';
  }
}

/**
 * How much is kept at one level (a session, a principal, the process): things and their size, in
 * the unit the store's options name (characters, bytes).
 */
export interface Usage {
  count: number;
  size: number;
}

/** One row of a bound check: what is used, what would be added, the maximum, and the option's name. */
export type Room = readonly [used: number, added: number, max: number, bound: string, processWide?: boolean];

/** The first row whose maximum `added` would pass, or undefined when everything fits. */
export function firstFull(rows: readonly Room[]): Room | undefined {
  for (const row of rows) if (row[0] + row[1] > row[2]) return row;
  return undefined;
}

/** The error for a full row: "A session may keep at most 1000 subscriptions (maxSubscriptions)". */
export function boundError(row: Room, principal: string, what: string, scope: string): BoundReached {
  const [, , max, bound, processWide] = row;
  const where = processWide ? 'The server' : scope[0]!.toUpperCase() + scope.slice(1);
  const code = processWide ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new BoundReached(bound, principal, `${where} may keep at most ${max} ${what} (${bound})`, code);
}

/** Principal-and-bound pairs already logged, per server; cleared when it would grow past this. */
const LOGGED_MAX = 10_000;
const logged = new WeakMap<object, Set<string>>();

/** True the first time `server` sees this principal reach this bound (so the caller logs it once). */
export function firstTimeReached(server: object, error: BoundReached): boolean {
  let seen = logged.get(server);
  if (seen === undefined) logged.set(server, (seen = new Set()));
  const key = `${error.bound}\u0000${error.principal}`;
  if (seen.has(key)) return false;
  if (seen.size >= LOGGED_MAX) seen.clear(); // the log may repeat; the set may not grow without bound
  seen.add(key);
  return true;
}
