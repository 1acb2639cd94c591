/**
 * A mounted child's skills (SEP-2640), served by the parent. A skill URI keeps its `skill://` scheme
 * (clients find skills by it): the namespace becomes the first segment of the skill's path, the
 * organizational prefix of docs/skills.md (`skill://greet/SKILL.md` of `kid` is
 * `skill://kid/greet/SKILL.md`). Other URIs are named as any mounted resource (`kid+file:///a`).
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { SkillSet, SkillSource } from '../skills/serve.js';
import { Naming } from './naming.js';

const SKILL = 'skill://';

export class MountNaming extends Naming {
  override uri(original: string): string {
    return original.startsWith(SKILL) ? `${SKILL}${this.namespace}/${original.slice(SKILL.length)}` : super.uri(original);
  }

  override originalUri(published: string): string | undefined {
    const prefix = `${SKILL}${this.namespace}/`;
    if (published.startsWith(prefix)) return SKILL + published.slice(prefix.length);
    return published.startsWith(SKILL) ? undefined : super.originalUri(published);
  }
}

/** The child's skills in the parent's URIs, with the child's visibility (its rules and its server filter). */
export function mountedSkills<Scope>(child: SkillSet<Scope>, naming: MountNaming): SkillSource<Scope> {
  const renamedUri = (item: JsonObject): JsonObject => ({ ...item, uri: naming.uri(String(item.uri)) });
  const renamed = (entry: JsonObject): JsonObject =>
    Array.isArray(entry.resources) ? { ...renamedUri(entry), resources: (entry.resources as JsonObject[]).map(renamedUri) } : renamedUri(entry);
  const original = (uri: string) => (uri.startsWith(SKILL) ? naming.originalUri(uri) : undefined);
  return {
    entries: (caller) => child.entries(caller).map(renamed),
    entry: (uri, caller) => {
      const own = original(uri);
      const entry = own === undefined ? undefined : child.entry(own, caller);
      return entry === undefined ? undefined : renamed(entry);
    },
    directory: (uri, caller) => {
      const own = original(uri);
      if (own === undefined || !child.directoryRead) return undefined;
      return child.directory(own, caller)?.map(renamedUri);
    },
  };
}
