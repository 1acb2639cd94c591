/**
 * `mcp.skills(root)`, `mcp.skill(dir)` and `mcp.skill({ path, files })`: every skill is read and
 * checked first, then all are served, so a registration that fails serves nothing of it.
 */
import type { VisibleRule } from '../primitives/visibility.js';
import { directoryPath, findSkillDirectories, readSkillFiles } from './files.js';
import { SkillError, checkSkillPath } from './rules.js';
import type { SkillHost, SkillSet } from './serve.js';
import { buildSkill, type Skill, type SkillDefinition } from './skill.js';

export interface SkillOptions<Scope = unknown> {
  /** Segments put before each skill's path in its `skill://` URIs (e.g. `acme/billing`); none by default. */
  prefix?: string;
  /** Who may see these skills, their files and directories (as `visible` on a resource). */
  visible?: VisibleRule<Scope>;
  /** Serve `resources/directory/read` (default true). Decided by the first skills registration of a server. */
  directoryRead?: boolean;
  /**
   * A file with more than one hard link may have its other name outside the skill (an app's `.env`),
   * so it is refused (`'refuse'`, the default). `'allow'` is for a folder no one untrusted can write to
   * whose files are links by design: a package installed by pnpm links every file to its store.
   */
  hardLinks?: 'refuse' | 'allow';
}

const joined = (prefix: string | undefined, path: string): string => (prefix ? `${prefix.replace(/^\/+|\/+$/g, '')}/${path}` : path);

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

async function fromDirectory<Scope>(dir: string, path: string, options: SkillOptions<Scope>): Promise<Skill<Scope>> {
  checkSkillPath(path, dir);
  const { hardLinks = 'refuse', visible } = options;
  if (hardLinks !== 'refuse' && hardLinks !== 'allow') throw new TypeError(`Skill option hardLinks must be 'refuse' or 'allow', got ${String(hardLinks)}`);
  return buildSkill<Scope>({ path, files: await readSkillFiles(dir, hardLinks === 'allow'), visible }, dir);
}

/** Every directory under `root` holding a SKILL.md becomes a skill at its path relative to `root`. */
export async function skillsUnder<Scope>(root: string | URL, options: SkillOptions<Scope>): Promise<Skill<Scope>[]> {
  const base = directoryPath(root);
  const found = await findSkillDirectories(base);
  if (found.length === 0) throw new SkillError(base, 'no directory under it holds a SKILL.md');
  const skills: Skill<Scope>[] = [];
  for (const relative of found) skills.push(await fromDirectory(`${base}/${relative}`, joined(options.prefix, relative), options));
  return skills;
}

/** One skill: a directory (named by its last segment) or the programmatic form. */
export async function oneSkill<Scope>(source: string | URL | SkillDefinition<Scope>, options: SkillOptions<Scope>): Promise<Skill<Scope>> {
  if (typeof source === 'string' || source instanceof URL) {
    const dir = directoryPath(source);
    return fromDirectory(dir, joined(options.prefix, lastSegment(dir)), options);
  }
  if (typeof source !== 'object' || source === null || typeof source.path !== 'string' || typeof source.files !== 'object') {
    throw new TypeError('mcp.skill() takes a directory, or { path, files }');
  }
  return buildSkill<Scope>({ ...source, path: joined(options.prefix, source.path), visible: source.visible ?? options.visible });
}

/** Serves built skills: all URIs are checked free first, so none is served when one clashes. */
export function serveSkills<Scope>(set: SkillSet<Scope>, host: SkillHost<Scope>, skills: readonly Skill<Scope>[]): void {
  const seen = new Set<string>();
  for (const skill of skills) {
    if (seen.has(skill.uri) || set.has(skill.uri)) throw new Error(`Skill ${skill.uri} is already served`);
    seen.add(skill.uri);
  }
  for (const skill of skills) set.add(skill, host);
}
