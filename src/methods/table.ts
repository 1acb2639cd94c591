/**
 * The method table of one server: the built-in request methods, registered at construction, and the
 * ones a user or a built-in feature adds with `mcp.method()`; the client notifications added with
 * `mcp.notification()` beside them. Looked up once per message, never rebuilt per request.
 */
import type { MethodLookup, MethodSpec, NotificationSpec } from '../request/core.js';

export type { MethodSpec, NotificationFacts, NotificationSpec } from '../request/core.js';

/** Notifications the core itself acts on: never replaced by a user's handler. */
const CORE_NOTIFICATIONS = new Set(['notifications/initialized', 'notifications/cancelled']);

/** A method name as JSON-RPC and MCP allow it: non-empty, no spaces, not the reserved `rpc.` prefix. */
function checkName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 256 || /\s/.test(name) || name.startsWith('rpc.')) {
    throw new Error(`${kind} name must be a non-empty string without spaces, at most 256 characters, not starting with "rpc.": ${JSON.stringify(name)}`);
  }
  return name;
}

export class MethodTable implements MethodLookup {
  readonly #methods = new Map<string, MethodSpec>();
  readonly #notifications = new Map<string, NotificationSpec>();

  constructor(builtIns: Iterable<readonly [string, MethodSpec]>) {
    for (const [name, spec] of builtIns) this.#methods.set(name, spec);
  }

  get(method: string): MethodSpec | undefined {
    return this.#methods.get(method);
  }

  has(method: string): boolean {
    return this.#methods.has(method);
  }

  /** Adds a request method; one name serves one method (built-ins included), so a second is refused. */
  add(name: string, spec: MethodSpec): void {
    checkName('Method', name);
    if (this.#methods.has(name)) throw new Error(`Method ${name} is already served (a built-in or an earlier registration)`);
    this.#methods.set(name, spec);
  }

  notification(method: string): NotificationSpec | undefined {
    return this.#notifications.get(method);
  }

  addNotification(name: string, spec: NotificationSpec): void {
    checkName('Notification', name);
    if (CORE_NOTIFICATIONS.has(name) || this.#notifications.has(name)) throw new Error(`Notification ${name} already has a handler`);
    this.#notifications.set(name, spec);
  }
}
