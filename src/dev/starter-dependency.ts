/**
 * What the starter of `minimcp init` depends on: the very package that wrote it. From the registry
 * that is `^version`; from a checkout, an `npm link` or a tarball (npx ./minimcp-x.tgz, npm install
 * ../minimcp-x.tgz) it is that same folder or file, since the version may not be published at all
 * (a registry 404 was the first thing such a starter did).
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';

export function starterDependency(packageRoot: string, version: string): string {
  const root = resolve(packageRoot);
  const parent = dirname(root);
  const project = basename(parent) === 'node_modules' ? dirname(parent) : basename(dirname(parent)) === 'node_modules' ? dirname(dirname(parent)) : undefined;
  if (project === undefined) return `file:${root}`; // not installed: a checkout or a link
  const resolved = lockedSource(project, root);
  if (resolved?.startsWith('file:')) {
    const target = resolved.slice('file:'.length);
    return `file:${isAbsolute(target) ? target : resolve(project, target)}`;
  }
  return `^${version}`;
}

/** Where the installing project's lock says this package came from (npm keeps it in node_modules/.package-lock.json). */
function lockedSource(project: string, root: string): string | undefined {
  try {
    const lock = JSON.parse(readFileSync(resolve(project, 'node_modules', '.package-lock.json'), 'utf8')) as {
      packages?: Record<string, { resolved?: string; link?: boolean }>;
    };
    const key = root.slice(project.length + 1).split(sep).join('/');
    return lock.packages?.[key]?.resolved;
  } catch {
    return undefined; // no lock (another package manager, a copy): the registry's version
  }
}
