/**
 * `mcp.mount(name, child)`: another MiniMCP's tools, prompts, resources and templates served in the
 * namespace `name` (src/gateway/naming.ts), in process: the child's own entries, renamed, run by the
 * parent's request (no JSON-RPC round trip). Each keeps the child's visibility: its rules, its
 * server filter and its scopes decide who sees it, exactly as they do on the child. A change of the
 * child's lists is a change of the parent's (list_changed), and its resource updates are the parent's.
 * Its skills and event types are served by the parent's skills and events methods (mount-skills.ts,
 * mount-events.ts).
 */
import type { Context } from '../context/context.js';
import { ATTACH, type Attachable, type AttachPoint } from './attach-point.js';
import type { PromptEntry } from '../primitives/prompts.js';
import type { ToolEntry } from '../primitives/tools.js';
import type { Caller } from '../primitives/visibility.js';
import { mountedEvents } from './mount-events.js';
import { MountNaming, mountedSkills } from './mount-skills.js';
import type { Naming } from './naming.js';

export interface Mounted {
  /** Removes what was mounted and stops following the child. */
  close(): void;
}

type Point = AttachPoint<unknown>;

function renamedTool(entry: ToolEntry<unknown>, name: string, child: Point): ToolEntry<unknown> {
  return { ...entry, id: name, name, definition: { ...entry.definition, name }, scopes: undefined, visible: (caller) => child.tools.allows(entry, caller) };
}

function renamedPrompt(entry: PromptEntry<unknown>, name: string, child: Point): PromptEntry<unknown> {
  return { ...entry, id: name, name, definition: { ...entry.definition, name }, scopes: undefined, visible: (caller) => child.prompts.allows(entry, caller) };
}

/** Registers every entry of the child under the namespace; returns the functions that remove them. */
function mountAll(parent: Point, child: Point, naming: Naming): (() => boolean)[] {
  const removers: (() => boolean)[] = [];
  for (const tool of child.tools.values()) removers.push(parent.tools.add(naming.name(tool.name), renamedTool(tool, naming.name(tool.name), child), true));
  for (const prompt of child.prompts.values()) removers.push(parent.prompts.add(naming.name(prompt.name), renamedPrompt(prompt, naming.name(prompt.name), child), true));
  const { resources, templates } = child.resources.entries();
  const read = (uri: string, ctx: Context<unknown>) => child.resources.read(naming.originalUri(uri) ?? uri, ctx).then((outcome) => naming.contents(outcome.result));
  for (const entry of resources) {
    const { uri: _uri, ...wire } = entry.definition;
    const visible = (caller: Caller<unknown>) => child.resources.allows(entry, caller);
    removers.push(parent.resources.add(naming.uri(entry.id), { ...wire, cache: entry.cache, visible, replace: true }, read));
  }
  for (const entry of templates) {
    const { uriTemplate: _t, ...wire } = entry.definition;
    const visible = (caller: Caller<unknown>) => child.resources.allows(entry, caller);
    const readTemplate = (uri: string, _vars: unknown, ctx: Context<unknown>) => read(uri, ctx);
    removers.push(parent.resources.addTemplate(naming.uri(entry.id), { ...wire, cache: entry.cache, visible, complete: entry.complete, replace: true }, readTemplate));
  }
  return removers;
}

export function mountServer(parent: Attachable<unknown>, name: string, child: Attachable<unknown>): Mounted {
  const naming = new MountNaming(name);
  if (naming.namespace === undefined) throw new Error('mount needs a name');
  const into = parent[ATTACH]();
  const from = child[ATTACH]();
  let removers = mountAll(into, from, naming);
  // The child's skills: served by the parent's skills methods, once the child has any.
  let stopSkills: (() => void) | undefined;
  const followSkills = () => {
    const skills = from.skills();
    if (stopSkills === undefined && skills !== undefined) stopSkills = into.skillHost().addSource(mountedSkills(skills, naming));
  };
  // The child's event types: served by the parent's events methods, once the child has any.
  let stopEvents: (() => void) | undefined;
  const followEvents = () => {
    const events = from.events();
    if (stopEvents !== undefined || events === undefined) return;
    stopEvents = into.eventHost().addSource(mountedEvents(events, naming));
    into.bus.publish({ type: 'events/list_changed' });
  };
  followSkills();
  followEvents();
  const remount = () => {
    followSkills();
    followEvents();
    const before = removers;
    removers = mountAll(into, from, naming);
    // What the child no longer has: the entries the new pass did not replace remove themselves only if still theirs.
    for (const remove of before) remove();
  };
  const stop = from.bus.subscribe((event) => {
    if (event.type === 'resources/updated') into.notifyResourceUpdated(naming.uri(event.uri));
    else if (event.type === 'events/list_changed') {
      if (stopEvents === undefined) followEvents(); // the child's first type (announces itself)
      else into.bus.publish(event);
    }
    else remount();
  });
  return {
    close: () => {
      stop();
      stopSkills?.();
      if (stopEvents !== undefined) {
        stopEvents();
        into.bus.publish({ type: 'events/list_changed' });
      }
      for (const remove of removers) remove();
    },
  };
}
