#!/usr/bin/env node
/**
 * `npm run release -- <patch|minor|major|x.y.z> [--dry-run]`: cuts a release on a clean tree.
 * Checks `npm test`, moves CHANGELOG.md's "Unreleased" notes under the new version, sets the version in
 * package.json and package-lock.json, commits "Release x.y.z" and tags vx.y.z. Publishing stays a
 * deliberate human step: the script prints the command (see docs/releasing.md).
 * With --dry-run it changes nothing: it prints the plan and the tarball `npm publish --dry-run` would upload.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const bump = args.find((a) => !a.startsWith('--'));

const run = (cmd, cmdArgs, opts = {}) => execFileSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8', stdio: 'inherit', ...opts });
const read = (cmd, cmdArgs) => execFileSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8' }).trim();
const fail = (message) => {
  console.error(`release: ${message}`);
  process.exit(1);
};

function nextVersion(current, how) {
  if (/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(how ?? '')) return how;
  const [major, minor, patch] = current.split('-')[0].split('.').map(Number);
  if (how === 'major') return `${major + 1}.0.0`;
  if (how === 'minor') return `${major}.${minor + 1}.0`;
  if (how === 'patch') return `${major}.${minor}.${patch + 1}`;
  return fail('usage: npm run release -- <patch|minor|major|x.y.z> [--dry-run]');
}

/** The changelog with its Unreleased notes under a heading for `version`; fails when there are none. */
function releaseChangelog(text, version, date) {
  const match = /^## Unreleased\n([\s\S]*?)(?=^## )/m.exec(text);
  if (!match || match[1].trim() === '') fail('CHANGELOG.md has no notes under "## Unreleased"');
  return text.replace(match[0], `## Unreleased\n\n## ${version} (${date})\n${match[1]}`);
}

const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const version = nextVersion(pkg.version, bump);
if (read('git', ['tag', '--list', `v${version}`])) fail(`tag v${version} exists already`);
const changelog = releaseChangelog(readFileSync(`${root}CHANGELOG.md`, 'utf8'), version, new Date().toISOString().slice(0, 10));

console.log(`release: ${pkg.name} ${pkg.version} -> ${version}${dryRun ? ' (dry run: nothing is changed)' : ''}`);
if (dryRun) {
  run('npm', ['publish', '--dry-run']);
  process.exit(0);
}
if (read('git', ['status', '--porcelain'])) fail('the working tree has uncommitted changes');
run('npm', ['test']);
writeFileSync(`${root}CHANGELOG.md`, changelog);
run('npm', ['version', version, '--no-git-tag-version']);
run('git', ['add', 'CHANGELOG.md', 'package.json', 'package-lock.json']);
run('git', ['commit', '-m', `Release ${version}`]);
run('git', ['tag', '-a', `v${version}`, '-m', `Release ${version}`]);
console.log(`\nrelease: tagged v${version}. To publish: npm publish && git push --follow-tags`);
