/**
 * Issue 26 item 9: `minimcp init` run from a checkout, a link or a tarball points the starter at that
 * same package; only an install from the registry gets `^version` (the version may be unpublished).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { starterDependency } from '../../src/dev/starter-dependency.js';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'minimcp-starter-dep-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A project with minimcp installed under node_modules, its lock saying where it came from (or no lock). */
function installed(resolved: string | undefined, name = 'minimcp'): string {
  const project = join(work, 'project');
  const root = join(project, 'node_modules', ...name.split('/'));
  mkdirSync(root, { recursive: true });
  if (resolved !== undefined) {
    const lock = { lockfileVersion: 3, packages: { [`node_modules/${name}`]: { version: '0.1.0', resolved } } };
    writeFileSync(join(project, 'node_modules', '.package-lock.json'), JSON.stringify(lock));
  }
  return root;
}

describe("the starter's minimcp dependency", () => {
  it('from a checkout or a link (not under node_modules): that folder', () => {
    expect(starterDependency(join(work, 'minimcp'), '0.1.0')).toBe(`file:${join(work, 'minimcp')}`);
  });

  it('installed from a tarball (npm install ../minimcp-0.1.0.tgz, npx ./minimcp.tgz): that tarball, as an absolute path', () => {
    expect(starterDependency(installed('file:../minimcp-0.1.0.tgz'), '0.1.0')).toBe(`file:${join(work, 'minimcp-0.1.0.tgz')}`);
    rmSync(join(work, 'project'), { recursive: true });
    expect(starterDependency(installed('file:/abs/minimcp-0.1.0.tgz'), '0.1.0')).toBe('file:/abs/minimcp-0.1.0.tgz');
  });

  it('installed from the registry, or with no lock to tell: ^version', () => {
    expect(starterDependency(installed('https://registry.npmjs.org/minimcp/-/minimcp-0.1.0.tgz'), '0.1.0')).toBe('^0.1.0');
    rmSync(join(work, 'project'), { recursive: true });
    expect(starterDependency(installed(undefined), '0.1.0')).toBe('^0.1.0');
  });
});
