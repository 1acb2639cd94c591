/**
 * The tarball `npm publish` would upload, checked the way a registry user meets it: `npm pack` (which
 * builds dist/), then publint and arethetypeswrong on the .tgz, a size budget, and an install into a
 * CommonJS project (`npm init`'s default) to show what `require` and the README's snippet do there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const subpaths = Object.keys(pkg.exports).map((key) => key.replace(/^\./, 'minimcp'));

/** Raise these only on purpose: a jump means something unintended is being published (source maps, tests...). */
// Raised on purpose when the dev server, playground page, test client, worker helper, MCP Apps, tasks and
// minimcp/redis joined (191.5 kB packed, 612 kB unpacked, 134 files then); again when minimcp/otel, the
// Redis task store, 2025 task input and docs/observability.md joined (222.8 kB, 711 kB, 146 files then); again
// when the extension API (mcp.method), Skills over MCP (src/skills/) and docs/extensions.md, docs/skills.md
// joined (252.8 kB, 808 kB, 159 files then); again when minimcp/auth (the OAuth resource server), the
// memory-model bounds of issue 24 and issue 26's stop log, registration checks, dev --scope, stdout guard,
// curl and elicitation docs joined (313.7 kB, 996 kB, 199 files then: dist/ and docs/ only, checked by hand);
// again when DPoP (src/auth/dpop.ts, the shared proof store) and ctx.once joined (331.4 kB, 1,052 kB, 209 files);
// again when minimcp/gateway (proxy, mount, `minimcp proxy`) and docs/gateway.md joined (369.4 kB, 1,172 kB, 242 files).
// again when minimcp/events/webhooks (the webhook delivery engine: 18 .d.ts and its bundle) and
// docs/webhooks-delivery.md joined (367.4 kB, 1,157 kB, 230 files); again when the events layer joined
// (SEP-3415: src/events/, minimcp/events, docs/events.md: 398.8 kB, 1,267 kB, 251 files); all of them on one
// main with Server Cards, the rate limits, docs/production.md, the bounds ledger and the gateway's OAuth client
// and tasks (490.3 kB, 1,563 kB, 312 files).
const BUDGET = { packedBytes: 510_000, unpackedBytes: 1_620_000, files: 325 };

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

let work: string;
let tarball: string;
let packed: PackResult;

const bin = (name: string) => join(root, 'node_modules', '.bin', name);

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'minimcp-tarball-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // prepack's build logs come first; the JSON report is the last thing printed.
  packed = (JSON.parse(out.slice(out.lastIndexOf('\n[') + 1)) as PackResult[])[0]!;
  tarball = join(work, packed.filename);
}, 180_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds only what a user needs, within the size budget', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => !/^(dist\/|bin\/minimcp\.mjs$|docs\/[\w-]+\.md$|README\.md$|LICENSE$|CHANGELOG\.md$|package\.json$)/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.map') || p.includes('.test.'))).toEqual([]);
    for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md', 'docs/http.md', 'docs/guide.md', 'dist/index.js', 'dist/index.d.ts', 'bin/minimcp.mjs']) {
      expect(paths).toContain(file);
    }
    expect(packed.size).toBeLessThanOrEqual(BUDGET.packedBytes);
    expect(packed.unpackedSize).toBeLessThanOrEqual(BUDGET.unpackedBytes);
    expect(packed.entryCount).toBeLessThanOrEqual(BUDGET.files);
  });

  it('publint finds nothing, suggestions included', () => {
    const run = spawnSync(bin('publint'), ['run', tarball, '--strict', '--level', 'suggestion'], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toContain('All good!');
    expect(run.status).toBe(0);
  });

  it('arethetypeswrong: every subpath resolves its types under node16 (ESM) and bundler, with no problem', () => {
    // ESM-only profile: node10 resolution cannot see "exports" (so no subpaths) and node16 from CJS
    // needs TypeScript's require(esm) support; README states both.
    const ignored = ['node10', 'node16-cjs'];
    const run = spawnSync(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      analysis: {
        entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string; isTypeScript: boolean } }> }>;
        problems: { kind: string; entrypoint?: string; resolutionKind?: string }[];
      };
    };
    const { entrypoints, problems } = report.analysis;
    expect(Object.keys(entrypoints)).toEqual(Object.keys(pkg.exports));
    expect(problems.filter((p) => !ignored.includes(p.resolutionKind ?? ''))).toEqual([]);
    for (const [entry, { resolutions }] of Object.entries(entrypoints)) {
      for (const kind of ['node16-esm', 'bundler']) {
        expect(resolutions[kind]?.resolution?.fileName, `${entry} under ${kind}`).toMatch(/\.d\.ts$/);
      }
    }
  });

  it('the published .d.ts give the same types: test/types compiles against the unpacked tarball (ESM, nodenext)', () => {
    // Inside the repository's node_modules, so the peers the type tests import (zod, valibot, express...)
    // resolve from there while `minimcp` resolves to the unpacked tarball next to the test file.
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    const app = mkdtempSync(join(root, 'node_modules', '.cache', 'minimcp-types-'));
    try {
      const installed = join(app, 'node_modules', 'minimcp');
      mkdirSync(installed, { recursive: true });
      execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'types-app', private: true, type: 'module' }));
      cpSync(join(root, 'test', 'types'), app, { recursive: true });
      const compilerOptions = {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        types: ['node'],
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        noEmit: true,
      };
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { encoding: 'utf8' });
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 180_000);

  describe('installed into a CommonJS project ("type": "commonjs", as npm init writes)', () => {
    let app: string;
    const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8', timeout: 30_000 });

    beforeAll(() => {
      app = join(work, 'cjs-app');
      const installed = join(app, 'node_modules', 'minimcp');
      mkdirSync(installed, { recursive: true });
      execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
      // The package's one dependency, where npm would put it (the test stays off the network).
      symlinkSync(join(root, 'node_modules', '@cfworker'), join(app, 'node_modules', '@cfworker'), 'dir');
      // The optional peer minimcp/otel imports, as a user of that subpath installs it.
      symlinkSync(join(root, 'node_modules', '@opentelemetry'), join(app, 'node_modules', '@opentelemetry'), 'dir');
      // And the optional peer minimcp/auth imports (jose).
      symlinkSync(join(root, 'node_modules', 'jose'), join(app, 'node_modules', 'jose'), 'dir');
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'cjs-app', version: '1.0.0', type: 'commonjs' }));
    });

    const USE = `
      const mcp = new MiniMCP({ name: 'cjs', version: '1' });
      mcp.tool('echo', { input: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => text);
      mcp.handle('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}').then((r) => console.log(r));`;
    const REPLY = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}';

    it("require() of every subpath: works through Node's require(esm), or Node's own ERR_REQUIRE_ESM names import()", () => {
      writeFileSync(
        join(app, 'require.js'),
        `${subpaths.map((s) => `require(${JSON.stringify(s)});`).join('\n')}\nconst { MiniMCP } = require('minimcp');${USE}`,
      );
      const run = node(['require.js']);
      if (process.features.require_module) {
        expect(run.stderr).toBe('');
        expect(run.stdout.trim()).toBe(REPLY);
      } else {
        expect(run.stderr).toContain('ERR_REQUIRE_ESM');
        expect(run.stderr).toContain('dynamic import()');
      }
    });

    it('import() from CommonJS works on every Node version', () => {
      writeFileSync(join(app, 'dynamic.js'), `Promise.all(${JSON.stringify(subpaths)}.map((s) => import(s))).then(([{ MiniMCP }]) => {${USE}\n});`);
      const run = node(['dynamic.js']);
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe(REPLY);
    });

    it('the README\'s ES module snippet in a .js file: Node says to set "type": "module" or use .mjs, and .mjs works', () => {
      const snippet = `import { MiniMCP } from 'minimcp';\nimport { serve } from 'minimcp/node';\nif (typeof serve !== 'function') throw new Error('no serve');${USE}`;
      writeFileSync(join(app, 'server.js'), snippet);
      const failed = node(['server.js']);
      expect(failed.status).not.toBe(0);
      expect(failed.stderr).toContain('Cannot use import statement outside a module');
      expect(failed.stderr).toContain('set "type": "module" in the package.json or use the .mjs extension');
      writeFileSync(join(app, 'server.mjs'), snippet);
      const fixed = node(['server.mjs']);
      expect(fixed.stderr).toBe('');
      expect(fixed.stdout.trim()).toBe(REPLY);
    });
  });
});
