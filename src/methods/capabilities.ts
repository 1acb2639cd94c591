/**
 * The server's capabilities as a client of one family sees them: built from what is registered,
 * cached per family until a registration changes, and computed per caller where visibility rules
 * apply, so the capabilities never hint at what a caller cannot use.
 */
import type { Core } from '../request/core.js';
import { callerMayUse, servedIn, type MethodCapability } from './extension.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { revisionOf } from '../protocol/revisions/index.js';
import type { Era, Eras } from '../protocol/revisions/revision.js';
import type { Caller } from '../primitives/visibility.js';

/** A capability some method declares, in the eras it is served, for the callers who may use it. */
interface Declared<Scope> {
  readonly capability: MethodCapability;
  readonly eras: Eras;
  readonly visible: ((caller: Caller<Scope>) => boolean) | undefined;
}

/** Primitives to advertise even before anything is registered (the `capabilities` option). */
export type ForcedCapabilities = { tools?: boolean; prompts?: boolean; resources?: boolean };

export class Capabilities<Scope> {
  #cached: Partial<Record<Era, JsonObject>> = {};
  readonly #declared: Declared<Scope>[] = [];
  /** The server's core, read when first needed (the core is built after this). */
  readonly #core: () => Core<Scope>;
  readonly #force: ForcedCapabilities;

  constructor(core: () => Core<Scope>, force: ForcedCapabilities) {
    this.#core = core;
    this.#force = force;
  }

  /** A registration changed what is advertised. */
  changed(): void {
    this.#cached = {};
  }

  /** A method declares `capability` while it is served. */
  declare(capability: MethodCapability, eras: Eras, visible: Declared<Scope>['visible']): void {
    this.#declared.push({ capability, eras, visible });
    this.changed();
  }

  /**
   * Completions only for a caller who may see a completer, and a method's capability only for a caller
   * who may use the method.
   */
  for(era: Era, caller: Caller<Scope> | undefined): JsonObject {
    const personal = caller !== undefined && this.#declared.some((d) => d.visible !== undefined);
    const caps = personal ? this.#compute(era, caller) : (this.#cached[era] ??= this.#compute(era));
    const core = this.#core();
    if (caller === undefined || caps.completions === undefined || core.prompts.hasCompletions(caller) || core.resources.hasCompletions(caller)) return caps;
    const { completions: _hidden, ...rest } = caps;
    return rest;
  }

  #compute(era: Era, caller?: Caller<Scope>): JsonObject {
    const core = this.#core();
    const caps: JsonObject = { logging: {} };
    if (core.tools.size || this.#force.tools) caps.tools = { listChanged: true };
    if (core.prompts.size || this.#force.prompts) caps.prompts = { listChanged: true };
    if (core.resources.size || this.#force.resources) caps.resources = { subscribe: true, listChanged: true };
    if (core.prompts.hasCompletions() || core.resources.hasCompletions()) caps.completions = {};
    // Tasks: a core capability in 2025, an extension in 2026 (the revision says where).
    if (core.tools.servesTasks()) revisionOf(era).declareTasks(caps);
    const report = (error: unknown) => core.reportError(error, undefined);
    for (const { capability, eras, visible } of this.#declared) {
      if (!servedIn(eras, era) || (caller !== undefined && !callerMayUse(visible, caller, report))) continue;
      addCapability(caps, capability);
    }
    return caps;
  }
}

/** Adds a method's capability; the settings of several methods under one capability merge. */
function addCapability(caps: JsonObject, capability: MethodCapability): void {
  const settings = capability.settings ?? {};
  if ('extension' in capability) {
    const extensions = (caps.extensions = { ...(caps.extensions as JsonObject | undefined) });
    extensions[capability.extension] = { ...(extensions[capability.extension] as JsonObject | undefined), ...settings };
  } else {
    caps[capability.core] = { ...(caps[capability.core] as JsonObject | undefined), ...settings };
  }
}
