/**
 * Skills from disk (Node, Bun, Deno): a skill directory read into memory once, at registration.
 * Only regular files inside the directory are read: a symbolic link (to a file or a folder, inside or
 * outside), a file with more than one hard link (its other name may be outside: an app's `.env`) or
 * any other special file is refused with an error naming it, so nothing outside the skill's
 * directory can ever be served. Each file's identity (device, inode) is taken from the listing and
 * checked again on the opened descriptor, and each folder's before it is listed: a folder swapped for
 * a link after the listing cannot redirect a read. Names starting with "." (.git, .DS_Store) are
 * skipped. The extension's limits are checked while reading, so an oversized folder stops early.
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

/** A listed file: its path in the skill and the identity it had when listed. */
interface Listed {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

const HARD_LINK = "files with more than one hard link are not served (its other name may be outside the skill: copy the file instead, or pass hardLinks: 'allow' for a folder no one untrusted can write to)";
const SYMBOLIC_LINK = 'symbolic links are not served (copy the file into the skill instead)';

/** Every file of a skill directory, by relative path; throws a SkillError for links (hard ones unless allowed), special files and the limits. */
export async function readSkillFiles(dir: string, allowHardLinks = false): Promise<Record<string, Uint8Array>> {
  const fs = await loadFs();
  // No link is followed, even one swapped in after the listing (ELOOP); a FIFO swapped in does not block.
  const { constants } = fs;
  const flag = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const files: Record<string, Uint8Array> = {};
  let count = 0;
  let bytes = 0;
  for (const listed of listFiles(fs, dir, allowHardLinks)) {
    const content = readListedFile(fs, dir, listed, flag, allowHardLinks);
    bytes += content.length;
    checkLimits(++count, bytes, dir);
    files[listed.path] = content;
  }
  return files;
}

/** The files of a skill directory with their identities, sorted by path; the file limit is checked while listing. */
function listFiles(fs: Fs, dir: string, allowHardLinks: boolean): Listed[] {
  const found: Listed[] = [];
  const root = fs.lstatSync(dir);
  const pending: Listed[] = [{ path: '', dev: root.dev, ino: root.ino }];
  let directories = 0;
  while (pending.length > 0) {
    const folder = pending.pop()!;
    const full = folder.path ? `${dir}/${folder.path}` : dir;
    const entries = fs.readdirSync(full, { withFileTypes: true });
    if (++directories > MAX_SKILL_FILES) throw new SkillError(dir, `more than ${MAX_SKILL_FILES} directories`);
    if (folder.path) sameAsListed(fs.lstatSync(full), folder, full); // still the folder its parent listed, not a link swapped in
    for (const entry of entries) {
      if (hidden(entry.name)) continue;
      const path = folder.path ? `${folder.path}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) throw new SkillError(`${dir}/${path}`, SYMBOLIC_LINK);
      if (!entry.isDirectory() && !entry.isFile()) throw new SkillError(`${dir}/${path}`, 'only regular files and directories are served');
      const stat = fs.lstatSync(`${dir}/${path}`);
      if (entry.isDirectory()) pending.push({ path, dev: stat.dev, ino: stat.ino });
      else {
        if (stat.nlink > 1 && !allowHardLinks) throw new SkillError(`${dir}/${path}`, HARD_LINK);
        found.push({ path, dev: stat.dev, ino: stat.ino });
        checkLimits(found.length, 0, dir);
      }
    }
  }
  return found.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

function sameAsListed(stat: { dev: number; ino: number }, listed: Listed, path: string): void {
  if (stat.dev !== listed.dev || stat.ino !== listed.ino) throw new SkillError(path, 'changed while the skill was read (a file or folder was replaced): register it again');
}

/** Reads a listed file through its descriptor, once that descriptor is shown to be the listed file, with one name. */
function readListedFile(fs: Fs, dir: string, listed: Listed, flag: number, allowHardLinks: boolean): Uint8Array {
  const path = `${dir}/${listed.path}`;
  let fd: number;
  try {
    fd = fs.openSync(path, flag);
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOOP') throw new SkillError(path, SYMBOLIC_LINK);
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new SkillError(path, 'only regular files and directories are served');
    if (stat.nlink > 1 && !allowHardLinks) throw new SkillError(path, HARD_LINK);
    sameAsListed(stat, listed, path);
    return new Uint8Array(fs.readFileSync(fd));
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
