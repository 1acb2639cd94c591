/**
 * The seam a composition feature (the gateway, src/gateway/) plugs into: the server's registries,
 * to add and remove entries whose wire objects come from elsewhere, and the server's log, telemetry
 * and update channel. Reached through a symbol-named method of MiniMCP (not public API).
 */
import type { Hooks } from '../request/core.js';
import type { MethodHandler, MethodOptions } from '../methods/extension.js';
import type { NotificationBus } from '../state/bus.js';
import type { Telemetry } from '../telemetry/types.js';
import type { PromptRegistry } from '../primitives/prompts.js';
import type { ResourceRegistry } from '../primitives/resources.js';
import type { ToolRegistry } from '../primitives/tools.js';
import type { SkillSet } from '../skills/serve.js';
import type { EventService } from '../events/service.js';

export const ATTACH: unique symbol = Symbol('minimcp.attach');

export interface AttachPoint<Scope = unknown> {
  readonly tools: ToolRegistry<Scope>;
  readonly prompts: PromptRegistry<Scope>;
  readonly resources: ResourceRegistry<Scope>;
  readonly telemetry: Telemetry | undefined;
  /** The server's list changes and resource updates (a mount follows its child's). */
  readonly bus: NotificationBus;
  reportError(error: unknown): void;
  /** Serves a request method (an upstream's extension methods, forwarded). */
  method(name: string, options: MethodOptions<undefined, Scope>, handler: MethodHandler<Scope, undefined>): void;
  /** Adds hooks around dispatch (the gateway sees subscriptions go by, to subscribe upstream). */
  use(hooks: Hooks<Scope>): void;
  notifyResourceUpdated(uri: string): void;
  /** The server's skills, if it serves any. */
  skills(): SkillSet<Scope> | undefined;
  /** The server's skills, made (with the skills methods) if it has none yet: a mount serves its child's through it. */
  skillHost(): SkillSet<Scope>;
  /** The server's event types, if it has any. */
  events(): EventService<Scope> | undefined;
  /** The server's event service, made (with the events methods) if it has none yet: a mount serves its child's types through it. */
  eventHost(): EventService<Scope>;
}

/** What a server offers to attach to (MiniMCP does). */
export interface Attachable<Scope = unknown> {
  [ATTACH](): AttachPoint<Scope>;
}
