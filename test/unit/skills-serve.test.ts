/**
 * Skills over MCP (SEP-2640) served: the capability in both eras, skills/list (paginated, entries
 * whole, cache attributes), skills/get, every file through resources/read with its MIME type and the
 * digest of the bytes served, resources/directory/read, dynamic skills, visibility per caller and
 * telemetry; and nothing outside a skill's directory readable (links, `..`, encoded traversal).
 */
import { createHook } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import fs, { linkSync, mkdtempSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { MiniMCP, SKILLS_EXTENSION, type Connection } from '../../src/index.js';
import { otelHarness } from '../support/otel.js';

const V = '2026-07-28';
const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
let nextId = 1;
const base = { name: 'skills', version: '1.0.0', onError: () => {} };
const skillMd = (name: string, description = `The ${name} skill`) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
const PDF_MD = skillMd('pdf-processing', 'Extract, fill, and assemble PDF documents');
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);

async function call(mcp: MiniMCP<any>, method: string, params: Record<string, unknown> = {}, facts = {}): Promise<any> {
  return mcp.handle({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }, facts);
}
const result = async (...a: Parameters<typeof call>) => (await call(...a)).result;
const error = async (...a: Parameters<typeof call>) => (await call(...a)).error;
const digest = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A folder of skills on disk: pdf-processing (text, a PNG, a subfolder) and acme/billing/refunds. */
function skillsFolder(): string {
  const root = mkdtempSync(join(tmpdir(), 'minimcp-skills-'));
  mkdirSync(join(root, 'pdf-processing/templates/regional'), { recursive: true });
  writeFileSync(join(root, 'pdf-processing/SKILL.md'), PDF_MD);
  writeFileSync(join(root, 'pdf-processing/templates/invoice.md'), '# Invoice\n');
  writeFileSync(join(root, 'pdf-processing/templates/regional/eu.txt'), 'EU\n');
  writeFileSync(join(root, 'pdf-processing/logo.png'), PNG);
  writeFileSync(join(root, 'pdf-processing/.DS_Store'), 'ignored');
  mkdirSync(join(root, 'acme/billing/refunds'), { recursive: true });
  writeFileSync(join(root, 'acme/billing/refunds/SKILL.md'), skillMd('refunds'));
  writeFileSync(join(root, 'notes.md'), 'not in any skill');
  return root;
}

describe('skills from a folder: discovery, capability, list and get', () => {
  it('every folder holding a SKILL.md is a skill at its path; the capability and resources are declared in both eras', async () => {
    const mcp = await new MiniMCP(base).skills(skillsFolder());
    const discover = await result(mcp, 'server/discover');
    expect(discover.capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    expect(discover.capabilities.resources).toBeDefined();
    const connection: Connection = { id: 'c' };
    const init = (await mcp.handle({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { connection })) as any;
    expect(init.result.capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: { directoryRead: true } });
    const list = (await mcp.handle({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} }, { connection })) as any;
    expect(list.result.skills.map((s: any) => s.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://pdf-processing/SKILL.md']);
    expect(list.result.ttlMs).toBeUndefined(); // 2025 results carry no cache attributes
  });

  it('an entry carries the frontmatter verbatim and every file with the digest and size of the bytes served', async () => {
    const mcp = await new MiniMCP(base).skills(skillsFolder());
    const { skill, ttlMs, cacheScope } = await result(mcp, 'skills/get', { uri: 'skill://pdf-processing/SKILL.md' });
    expect([ttlMs, cacheScope]).toEqual([0, 'private']); // skills/get is cached like resources/read
    expect(skill.frontmatter).toEqual({ name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' });
    expect(skill.resources.map((r: any) => r.uri)).toEqual([
      'skill://pdf-processing/SKILL.md', 'skill://pdf-processing/logo.png',
      'skill://pdf-processing/templates/invoice.md', 'skill://pdf-processing/templates/regional/eu.txt',
    ]);
    for (const entry of skill.resources) {
      const [content] = (await result(mcp, 'resources/read', { uri: entry.uri })).contents;
      const bytes = content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64');
      expect([entry.digest, entry.size]).toEqual([digest(bytes), bytes.length]);
    }
  });

  it('resources/read: each file with its MIME type; SKILL.md listed with its name and description', async () => {
    const mcp = await new MiniMCP(base).skills(skillsFolder());
    const read = async (uri: string) => (await result(mcp, 'resources/read', { uri })).contents[0];
    expect(await read('skill://pdf-processing/SKILL.md')).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining('name: pdf-processing') });
    expect(await read('skill://pdf-processing/logo.png')).toEqual({ uri: 'skill://pdf-processing/logo.png', mimeType: 'image/png', blob: Buffer.from(PNG).toString('base64') });
    expect(await read('skill://pdf-processing/templates/regional/eu.txt')).toMatchObject({ mimeType: 'text/plain', text: 'EU\n' });
    const listed = (await result(mcp, 'resources/list')).resources;
    expect(listed.find((r: any) => r.uri === 'skill://pdf-processing/SKILL.md')).toEqual({
      uri: 'skill://pdf-processing/SKILL.md', name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', mimeType: 'text/markdown', size: Buffer.byteLength(PDF_MD),
    });
  });

  it('bytes that are not UTF-8 go as a blob even under a textual type, so the digest still covers what is served', async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1
    const mcp = await new MiniMCP(base).skill({ path: 'a', files: { 'SKILL.md': skillMd('a'), 'latin1.md': latin1, 'utf8.md': new TextEncoder().encode('café') } });
    const read = async (uri: string) => (await result(mcp, 'resources/read', { uri })).contents[0];
    expect(await read('skill://a/latin1.md')).toEqual({ uri: 'skill://a/latin1.md', mimeType: 'text/markdown', blob: Buffer.from(latin1).toString('base64') });
    expect(await read('skill://a/utf8.md')).toEqual({ uri: 'skill://a/utf8.md', mimeType: 'text/markdown', text: 'café' });
    const entry = (await result(mcp, 'skills/get', { uri: 'skill://a/SKILL.md' })).skill.resources.find((r: any) => r.uri === 'skill://a/latin1.md');
    expect(entry).toEqual({ uri: 'skill://a/latin1.md', digest: digest(latin1), size: 4 });
  });

  it('skills/get of an unknown URI is -32602 with data.uri; of a file that is not a SKILL.md too', async () => {
    const mcp = await new MiniMCP(base).skills(skillsFolder());
    for (const uri of ['skill://nope/SKILL.md', 'skill://pdf-processing/templates/invoice.md', 'skill://pdf-processing']) {
      expect(await error(mcp, 'skills/get', { uri })).toEqual({ code: -32602, message: `No skill is served at ${uri}`, data: { uri } });
    }
    expect((await error(mcp, 'skills/get', {})).code).toBe(-32602);
  });

  it('skills/list pages whole entries, follows its cursor to the end, and carries the list cache attributes', async () => {
    const mcp = new MiniMCP({ ...base, pageSize: 2 });
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await mcp.skill({ path: name, files: { 'SKILL.md': skillMd(name), 'x.md': name } });
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await result(mcp, 'skills/list', cursor ? { cursor } : {});
      expect([page.ttlMs, page.cacheScope]).toEqual([60_000, 'public']);
      for (const skill of page.skills) expect(skill.resources).toHaveLength(2); // an entry is never split
      uris.push(...page.skills.map((s: any) => s.uri));
      cursor = page.nextCursor;
    } while (cursor);
    expect(uris).toEqual(['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => `skill://${n}/SKILL.md`));
    expect((await error(mcp, 'skills/list', { cursor: 'bogus' })).code).toBe(-32602);
  });

  it('a registration that clashes with a served skill, or finds no skill, serves nothing of it', async () => {
    const mcp = await new MiniMCP(base).skill({ path: 'refunds', files: { 'SKILL.md': skillMd('refunds') } });
    const root = skillsFolder();
    await expect(mcp.skill(join(root, 'acme/billing/refunds'))).rejects.toThrow('Skill skill://refunds/SKILL.md is already served');
    await expect(mcp.skills(join(root, 'acme/billing/refunds'))).rejects.toThrow('no directory under it holds a SKILL.md');
    expect((await result(mcp, 'skills/list')).skills).toHaveLength(1);
  });
});

describe('the skills methods on the fast path', () => {
  it('skills/list and skills/get answer without a single promise; a non-string cursor is -32602', async () => {
    const mcp = await new MiniMCP(base).skill({ path: 'a', files: { 'SKILL.md': skillMd('a') } });
    const list = { jsonrpc: '2.0', id: 1, method: 'skills/list', params: { _meta: meta } };
    const get = { jsonrpc: '2.0', id: 2, method: 'skills/get', params: { uri: 'skill://a/SKILL.md', _meta: meta } };
    const never = { deliver: () => { throw new Error('not synchronous'); } };
    mcp.route(list, {}, never);
    let promises = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) }).enable();
    const outcomes = [mcp.route(list, {}, never), mcp.route(get, {}, never)];
    hook.disable();
    expect(outcomes.map((o) => (o?.reply as any)?.result?.resultType)).toEqual(['complete', 'complete']);
    expect(promises).toBe(0);
    expect((await error(mcp, 'skills/list', { cursor: 5 })).message).toBe('Invalid params for skills/list: cursor: must be a string');
  });
});

describe('resources/directory/read', () => {
  it('lists direct children (subfolders as inode/directory), paginated; a non-directory is -32602', async () => {
    const mcp = new MiniMCP({ ...base, pageSize: 2 });
    await mcp.skills(skillsFolder());
    const first = await result(mcp, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    const second = await result(mcp, 'resources/directory/read', { uri: 'skill://pdf-processing', cursor: first.nextCursor });
    expect([...first.resources, ...second.resources]).toEqual([
      { uri: 'skill://pdf-processing/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(PDF_MD) },
      { uri: 'skill://pdf-processing/logo.png', name: 'logo.png', mimeType: 'image/png', size: PNG.length },
      { uri: 'skill://pdf-processing/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
    expect(second.nextCursor).toBeUndefined();
    expect((await result(mcp, 'resources/directory/read', { uri: 'skill://pdf-processing/templates/regional' })).resources)
      .toEqual([{ uri: 'skill://pdf-processing/templates/regional/eu.txt', name: 'eu.txt', mimeType: 'text/plain', size: 3 }]);
    for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://acme', 'skill://nowhere']) {
      expect(await error(mcp, 'resources/directory/read', { uri })).toEqual({ code: -32602, message: `${uri} is not a directory resource`, data: { uri } });
    }
  });

  it('directoryRead: false serves no resources/directory/read and declares none', async () => {
    const mcp = await new MiniMCP(base).skill({ path: 'a', files: { 'SKILL.md': skillMd('a') } }, { directoryRead: false });
    expect((await result(mcp, 'server/discover')).capabilities.extensions).toEqual({ [SKILLS_EXTENSION]: {} });
    expect((await error(mcp, 'resources/directory/read', { uri: 'skill://a' })).code).toBe(-32601);
    await expect(mcp.skill({ path: 'b', files: { 'SKILL.md': skillMd('b') } }, { directoryRead: true })).rejects.toThrow('first skills registration');
  });
});

describe('dynamic skills, visibility, telemetry', () => {
  it('a file given as a function makes the entry "dynamic" and is made on each read', async () => {
    let n = 0;
    const mcp = await new MiniMCP(base).skill({ path: 'reports/daily', files: { 'SKILL.md': skillMd('daily'), 'today.md': () => `report ${++n}` } });
    expect((await result(mcp, 'skills/get', { uri: 'skill://reports/daily/SKILL.md' })).skill.resources).toBe('dynamic');
    expect((await result(mcp, 'resources/read', { uri: 'skill://reports/daily/today.md' })).contents[0].text).toBe('report 1');
    expect((await result(mcp, 'resources/read', { uri: 'skill://reports/daily/today.md' })).contents[0].text).toBe('report 2');
  });

  it('a skill hidden from a caller is absent from its list, get, reads and directories, and answers turn private', async () => {
    type Scope = { admin?: boolean };
    const mcp = new MiniMCP<Scope>(base);
    await mcp.skill({ path: 'open', files: { 'SKILL.md': skillMd('open') } });
    await mcp.skill({ path: 'secret', files: { 'SKILL.md': skillMd('secret') } }, { visible: (c) => c.scope?.admin === true });
    const user = { scope: {} };
    const admin = { scope: { admin: true } };
    const list = await result(mcp, 'skills/list', {}, user);
    expect(list.skills.map((s: any) => s.uri)).toEqual(['skill://open/SKILL.md']);
    expect(list.cacheScope).toBe('private');
    expect((await error(mcp, 'skills/get', { uri: 'skill://secret/SKILL.md' }, user)).code).toBe(-32602);
    expect((await error(mcp, 'resources/read', { uri: 'skill://secret/SKILL.md' }, user)).code).toBe(-32602);
    expect((await error(mcp, 'resources/directory/read', { uri: 'skill://secret' }, user)).code).toBe(-32602);
    expect((await result(mcp, 'skills/list', {}, admin)).skills).toHaveLength(2);
    expect((await result(mcp, 'skills/get', { uri: 'skill://secret/SKILL.md' }, admin)).skill.frontmatter.name).toBe('secret');
  });

  it('token scopes decide what skills/list shows, so its answers are private (as resources/list)', async () => {
    const token = (scopes: string[]) => ({ auth: { principal: 'p', issuer: 'https://i.example', subject: 'alice', clientId: 'app', scopes, expiresAt: Date.now() + 60_000, claims: {} } });
    const mcp = new MiniMCP({ ...base, scopes: ['skills'] });
    await mcp.skill({ path: 'open', files: { 'SKILL.md': skillMd('open') } });
    const withScope = await result(mcp, 'skills/list', {}, token(['skills']));
    const without = await result(mcp, 'skills/list', {}, token([]));
    expect([withScope.skills.length, without.skills.length]).toEqual([1, 0]);
    expect([withScope.cacheScope, without.cacheScope, (await result(mcp, 'resources/list', {}, token([]))).cacheScope]).toEqual(['private', 'private', 'private']);
    // A scope on any resource, not a skill's, makes what callers see differ too.
    const other = new MiniMCP(base);
    await other.skill({ path: 'open', files: { 'SKILL.md': skillMd('open') } });
    other.resource('app://secret', { scopes: ['admin'] }, () => 'secret');
    expect((await result(other, 'skills/list', {}, token([]))).cacheScope).toBe('private');
  });

  it('the server-wide visible filter hides a skill whose SKILL.md it hides: from list, get and directories too', async () => {
    type Scope = { team?: string };
    const mcp = new MiniMCP<Scope>({ ...base, visible: (primitive, caller) => !primitive.id.startsWith('skill://billing/') || caller.scope?.team === 'billing' });
    await mcp.skill({ path: 'billing', files: { 'SKILL.md': skillMd('billing') } });
    await mcp.skill({ path: 'open', files: { 'SKILL.md': skillMd('open') } });
    const other = { scope: { team: 'support' } };
    const list = await result(mcp, 'skills/list', {}, other);
    expect([list.skills.map((s: any) => s.uri), list.cacheScope]).toEqual([['skill://open/SKILL.md'], 'private']);
    expect((await error(mcp, 'skills/get', { uri: 'skill://billing/SKILL.md' }, other)).code).toBe(-32602);
    expect((await error(mcp, 'resources/directory/read', { uri: 'skill://billing' }, other)).code).toBe(-32602);
    expect((await result(mcp, 'skills/list', {}, { scope: { team: 'billing' } })).skills).toHaveLength(2);
  });

  it('telemetry: the skills methods get spans named by their method', async () => {
    const otel = otelHarness();
    const mcp = await new MiniMCP({ ...base, telemetry: otel.telemetry }).skill({ path: 'a', files: { 'SKILL.md': skillMd('a') } });
    await call(mcp, 'skills/list');
    await call(mcp, 'skills/get', { uri: 'skill://a/SKILL.md' });
    await call(mcp, 'resources/directory/read', { uri: 'skill://a' });
    expect(otel.spans().filter((s) => s.kind === SpanKind.SERVER).map((s) => s.name)).toEqual(['skills/list', 'skills/get', 'resources/directory/read']);
  });
});

describe('nothing outside a skill directory is readable', () => {
  it('a symbolic link inside a skill (to a file or a folder, outside or inside) is refused at registration, naming it', async () => {
    const root = skillsFolder();
    const outside = mkdtempSync(join(tmpdir(), 'minimcp-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'pdf-processing/leak.txt'));
    await expect(new MiniMCP(base).skills(root)).rejects.toThrow(`Skill ${root}/pdf-processing/leak.txt: symbolic links are not served`);
    const other = skillsFolder();
    symlinkSync(outside, join(other, 'pdf-processing/linked-folder'));
    await expect(new MiniMCP(base).skill(join(other, 'pdf-processing'))).rejects.toThrow('linked-folder: symbolic links are not served');
    const inside = skillsFolder();
    symlinkSync(join(inside, 'pdf-processing/templates/invoice.md'), join(inside, 'pdf-processing/copy.md'));
    await expect(new MiniMCP(base).skills(inside)).rejects.toThrow('copy.md: symbolic links are not served');
  });

  it('a hard link inside a skill to a file outside it (an app .env) is refused at registration, naming it', async () => {
    const root = skillsFolder();
    const outside = mkdtempSync(join(tmpdir(), 'minimcp-outside-'));
    writeFileSync(join(outside, '.env'), 'DATABASE_PASSWORD=hunter2');
    linkSync(join(outside, '.env'), join(root, 'pdf-processing/notes.md'));
    await expect(new MiniMCP(base).skills(root)).rejects.toThrow(`Skill ${root}/pdf-processing/notes.md: files with more than one hard link are not served`);
    // A folder whose files are links by design (a package installed by pnpm) opts in; the other checks stay.
    const mcp = await new MiniMCP(base).skills(root, { hardLinks: 'allow' });
    expect((await result(mcp, 'resources/read', { uri: 'skill://pdf-processing/notes.md' })).contents[0].text).toBe('DATABASE_PASSWORD=hunter2');
    await expect(new MiniMCP(base).skills(root, { hardLinks: 'yes' as never })).rejects.toThrow(/hardLinks must be 'refuse' or 'allow'/);
  });

  it('a folder swapped for a link to the outside after the listing cannot redirect a read', async () => {
    const root = skillsFolder();
    const outside = mkdtempSync(join(tmpdir(), 'minimcp-outside-'));
    writeFileSync(join(outside, 'invoice.md'), 'SECRET from outside');
    mkdirSync(join(outside, 'regional'));
    writeFileSync(join(outside, 'regional/eu.txt'), 'SECRET too');
    const templates = join(root, 'pdf-processing/templates');
    const openSync = fs.openSync;
    // The moment the file is opened, its folder becomes a link to another one holding a file of the same name.
    fs.openSync = ((path: string, ...rest: never[]) => {
      if (String(path) === `${templates}/invoice.md`) {
        renameSync(templates, `${templates}-moved`);
        symlinkSync(outside, templates);
      }
      return (openSync as (...a: unknown[]) => number)(path, ...rest);
    }) as typeof fs.openSync;
    syncBuiltinESMExports();
    try {
      await expect(new MiniMCP(base).skill(join(root, 'pdf-processing'))).rejects.toThrow('invoice.md: changed while the skill was read');
    } finally {
      fs.openSync = openSync;
      syncBuiltinESMExports();
    }
  });

  it('a linked folder is never followed when looking for skills', async () => {
    const root = skillsFolder();
    const outside = mkdtempSync(join(tmpdir(), 'minimcp-outside-'));
    mkdirSync(join(outside, 'evil'));
    writeFileSync(join(outside, 'evil/SKILL.md'), skillMd('evil'));
    symlinkSync(join(outside, 'evil'), join(root, 'evil'));
    const mcp = await new MiniMCP(base).skills(root);
    expect((await result(mcp, 'skills/list')).skills.map((s: any) => s.uri)).not.toContain('skill://evil/SKILL.md');
  });

  it('.., encoded traversal, doubled slashes and files beside the skills are not found (-32602)', async () => {
    const mcp = await new MiniMCP(base).skills(skillsFolder());
    const attempts = [
      'skill://pdf-processing/../notes.md', 'skill://pdf-processing/%2e%2e/notes.md', 'skill://pdf-processing/%2E%2E%2Fnotes.md',
      'skill://pdf-processing/templates/../SKILL.md/../../notes.md', 'skill://pdf-processing//etc/passwd', 'skill://pdf-processing/..%2f..%2fetc/passwd',
      'skill://notes.md', 'skill:///etc/passwd', 'skill://pdf-processing/.DS_Store', 'skill://pdf-processing/templates/%2e%2e/SKILL.md', 'file:///etc/passwd',
    ];
    for (const uri of attempts) {
      const failure = await error(mcp, 'resources/read', { uri });
      expect([uri, failure?.code]).toEqual([uri, -32602]);
      expect((await error(mcp, 'resources/directory/read', { uri })).code).toBe(-32602);
    }
  });
});
