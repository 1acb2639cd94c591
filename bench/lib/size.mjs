/**
 * Installed sizes (apparent bytes, like `du -sb`): MiniMCP as `npm pack` would publish it plus its
 * production dependencies, against other packages with their production dependencies.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function duBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') total += duBytes(path); // nested deps are counted as deps
    } else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Node's lookup: node_modules/<name> in `from` and each parent directory. */
function resolveDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** { bytes, packages } of the production dependencies of the package in `dir` (not the package itself). */
function depsOf(dir, seen = new Set()) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  let bytes = 0;
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
    const depDir = resolveDir(name, dir);
    if (!depDir || seen.has(depDir)) continue;
    seen.add(depDir);
    bytes += duBytes(depDir) + depsOf(depDir, seen).bytes;
  }
  return { bytes, packages: seen.size };
}

/** A package installed in node_modules, with its production dependencies. */
export function installedSize(name) {
  const dir = resolveDir(name, root);
  if (!dir) return undefined;
  const own = duBytes(dir);
  const deps = depsOf(dir);
  return { name, ownBytes: own, depBytes: deps.bytes, depCount: deps.packages, totalBytes: own + deps.bytes };
}

/** MiniMCP itself: what `npm pack` publishes (needs dist/ built) plus its production dependencies. */
export function minimcpSize() {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  const deps = depsOf(root);
  return { name: 'minimcp', ownBytes: pack.unpackedSize, packedBytes: pack.size, depBytes: deps.bytes, depCount: deps.packages, totalBytes: pack.unpackedSize + deps.bytes };
}
