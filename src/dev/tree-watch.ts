/**
 * Watches a folder tree for saves with one plain (non-recursive) fs.watch per directory. Why not
 * `watch(dir, { recursive: true })`: on Linux, Node 20 implements it by watching each file, and a save
 * that writes a temporary file and renames it over the original (`sed -i`, vim, "safe write" editors)
 * replaces the watched file, so after one or two such saves nothing restarted any more. A directory's
 * own watch sees every rename into it; new subdirectories get their watch as they appear.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';

/** Enough for any source tree; past it, deeper folders are not watched (node_modules is never walked). */
const MAX_DIRECTORIES = 2_000;

export class TreeWatch {
  readonly #watchers = new Map<string, FSWatcher>();
  #closed = false;

  constructor(
    private readonly root: string,
    private readonly ignored: RegExp,
    private readonly onChange: (path: string) => void,
  ) {
    this.#add(root);
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #add(dir: string): void {
    if (this.#closed || this.#watchers.has(dir) || this.#watchers.size >= MAX_DIRECTORIES) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (event, name) => this.#event(dir, event, name));
    } catch {
      return; // gone already, or not readable
    }
    // A removed directory ends its watch with an error on some platforms: forget it (a new one re-arms).
    watcher.on('error', () => this.#forget(dir));
    this.#watchers.set(dir, watcher);
    for (const entry of this.#entries(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !this.ignored.test(relative(this.root, path))) this.#add(path);
    }
  }

  #event(dir: string, event: string, name: string | Buffer | null): void {
    const path = name === null ? dir : join(dir, String(name));
    const shown = relative(this.root, path);
    if (shown !== '' && this.ignored.test(shown)) return;
    // A rename may be a new (or renamed) folder: watch it too; a folder that went away stops its own watch.
    if (event === 'rename' && name !== null) {
      if (isDirectory(path)) this.#add(path);
      else if (this.#watchers.has(path)) this.#forget(path);
    }
    this.onChange(shown);
  }

  #forget(dir: string): void {
    this.#watchers.get(dir)?.close();
    this.#watchers.delete(dir);
  }

  #entries(dir: string) {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
