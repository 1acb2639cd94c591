/**
 * Skills from disk (Node, Bun, Deno): a skill directory read into memory once, at registration.
 * Only regular files inside the directory are read: a symbolic link (to a file or a folder, inside or
 * outside) or any other special file is refused with an error naming it, so nothing outside the
 * skill's directory can ever be served. Names starting with "." (.git, .DS_Store) are skipped. The
 * extension's limits are checked while reading, so an oversized folder stops early.
 */
import { MAX_SKILL_FILES, SkillError, checkLimits } from './rules.js';

type Fs = typeof import('node:fs');

/** How many directories `skills(root)` looks through for SKILL.md files before giving up. */
export const MAX_SCAN_DIRECTORIES = 10_000;

/**
 * Synchronous reads, once the module is loaded: registration is a start-up step, and 500 small files
 * read in ~15 ms this way against ~100 ms through the thread pool (bench/skills.mjs, a busy 2-core box).
 */
const loadFs = (): Promise<Fs> => import('node:fs');

/** A directory given as a path or a file: URL, without a trailing slash. */
export function directoryPath(dir: string | URL): string {
  const path = dir instanceof URL ? decodeURIComponent(dir.pathname) : dir;
  if (typeof path !== 'string' || path.length === 0) throw new TypeError('A skills directory must be a path or a file: URL');
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

const hidden = (name: string): boolean => name.startsWith('.');

/** Every file of a skill directory, by relative path; throws a SkillError for links, special files and the limits. */
export async function readSkillFiles(dir: string): Promise<Record<string, Uint8Array>> {
  const fs = await loadFs();
  // No link is followed, even one swapped in after the listing (ELOOP); a FIFO swapped in does not block.
  const { constants } = fs;
  const flag = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const files: Record<string, Uint8Array> = {};
  let count = 0;
  let bytes = 0;
  for (const path of listFiles(fs, dir)) {
    const content = readRegularFile(fs, `${dir}/${path}`, flag);
    bytes += content.length;
    checkLimits(++count, bytes, dir);
    files[path] = content;
  }
  return files;
}

/** The relative paths of a skill directory's files, sorted; the file limit is checked while listing. */
function listFiles(fs: Fs, dir: string): string[] {
  const found: string[] = [];
  const pending = [''];
  let directories = 0;
  while (pending.length > 0) {
    const relative = pending.pop()!;
    const entries = fs.readdirSync(relative ? `${dir}/${relative}` : dir, { withFileTypes: true });
    if (++directories > MAX_SKILL_FILES) throw new SkillError(dir, `more than ${MAX_SKILL_FILES} directories`);
    for (const entry of entries) {
      if (hidden(entry.name)) continue;
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) throw new SkillError(`${dir}/${path}`, 'symbolic links are not served (copy the file into the skill instead)');
      if (entry.isDirectory()) pending.push(path);
      else if (!entry.isFile()) throw new SkillError(`${dir}/${path}`, 'only regular files and directories are served');
      else {
        found.push(path);
        checkLimits(found.length, 0, dir);
      }
    }
  }
  return found.sort();
}

function readRegularFile(fs: Fs, path: string, flag: number): Uint8Array {
  let fd: number;
  try {
    fd = fs.openSync(path, flag);
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOOP') throw new SkillError(path, 'symbolic links are not served (copy the file into the skill instead)');
    throw error;
  }
  try {
    return new Uint8Array(fs.readFileSync(fd)); // the listing said a regular file; O_NOFOLLOW keeps it one
  } finally {
    fs.closeSync(fd);
  }
}

/** The directories under `root` (not `root` itself) that hold a SKILL.md, as paths relative to `root`. */
export async function findSkillDirectories(root: string): Promise<string[]> {
  const fs = await loadFs();
  const found: string[] = [];
  const pending = [''];
  let scanned = 0;
  while (pending.length > 0) {
    const relative = pending.pop()!;
    if (++scanned > MAX_SCAN_DIRECTORIES) throw new SkillError(root, `more than ${MAX_SCAN_DIRECTORIES} directories to look through`);
    const entries = fs.readdirSync(relative ? `${root}/${relative}` : root, { withFileTypes: true });
    if (relative && entries.some((e) => e.name === 'SKILL.md' && e.isFile())) found.push(relative);
    for (const entry of entries) {
      if (hidden(entry.name) || !entry.isDirectory()) continue; // a linked folder is never followed
      pending.push(relative ? `${relative}/${entry.name}` : entry.name);
    }
  }
  return found.sort();
}
