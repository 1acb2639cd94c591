/**
 * One skill as it is served: its `skill://` URIs, its checked frontmatter, its files with the digest
 * and size of the bytes served (computed once, here), the entry `skills/list` and `skills/get`
 * return, and its directory tree for `resources/directory/read`. Built from files in memory, so
 * nothing is read from disk per request: a URI that names no file here names nothing at all.
 */
import type { Context } from '../context/context.js';
import { hashing, loadCrypto } from '../platform/crypto.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { VisibleRule } from '../primitives/visibility.js';
import { knownMimeType, mimeTypeOf, servedAsText } from './mime.js';
import { SkillError, checkLimits, checkSkillPath, skillFrontmatter } from './rules.js';

import type { MaybePromise } from '../protocol/mcp-types.js';

/** A file's content: text, bytes, or (a dynamic skill) a function that makes it on each read. */
export type SkillFile<Scope = unknown> = string | Uint8Array | ((ctx: Context<Scope>) => MaybePromise<string | Uint8Array>);

/** The programmatic form of a skill: its path under `skill://` and its files by relative path. */
export interface SkillDefinition<Scope = unknown> {
  /** `<skill-path>`: one or more `/`-separated segments; the last is the skill's name (e.g. `acme/billing/refunds`). */
  path: string;
  /** Relative path (`/`-separated) to content. `SKILL.md` is required and must be text or bytes; a function makes the skill dynamic. */
  files: Record<string, SkillFile<Scope>>;
  /** Who may see the skill, its files and its directories; to everyone else they do not exist. */
  visible?: VisibleRule<Scope>;
}

export interface ServedFile<Scope> {
  readonly uri: string;
  /** Its path within the skill. */
  readonly path: string;
  readonly mimeType: string;
  /** Undefined for a dynamic file. */
  readonly size: number | undefined;
  /** Text for valid UTF-8 of a textual type, bytes otherwise; a function for a dynamic file. */
  readonly body: string | Uint8Array | ((ctx: Context<Scope>) => MaybePromise<string | Uint8Array>);
}

export interface Skill<Scope> {
  readonly uri: string;
  /** `skill://<skill-path>`: the root directory resource. */
  readonly root: string;
  readonly frontmatter: JsonObject;
  readonly files: readonly ServedFile<Scope>[];
  /** Directory URI -> its direct children as Resource metadata (files, and subdirectories as `inode/directory`). */
  readonly directories: ReadonlyMap<string, readonly JsonObject[]>;
  /** The Skill entry of `skills/list` and `skills/get`. */
  readonly entry: JsonObject;
  readonly visible: VisibleRule<Scope> | undefined;
}

export const DIRECTORY_MIME_TYPE = 'inode/directory';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** A relative file path: `/`-separated, no empty, `.` or `..` segment, no backslash or control character. */
function checkFilePath(path: string, where: string): void {
  const bad = path.length === 0 || path.length > 1024 || path.startsWith('/') || path.includes('\\') || [...path].some((c) => c < ' ') ||
    path.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw new SkillError(where, `the file path ${JSON.stringify(path)} must be relative, "/"-separated, without "." or ".." segments`);
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const hex = (bytes: Uint8Array): string => {
  let out = '';
  for (const b of bytes) out += HEX[b];
  return out;
};

function textOf(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The body of a file of a textual type given as bytes: text when they are UTF-8 (they then decode
 * back to exactly these bytes), else the bytes. Decided on the first read, so start-up decodes nothing.
 */
function textOnRead(bytes: Uint8Array): () => string | Uint8Array {
  let body: string | Uint8Array | undefined;
  return () => (body ??= textOf(bytes) ?? bytes);
}

/** A static file, served as the exact bytes the digest covers (text only when it decodes back to them). */
function staticFile<Scope>(root: string, path: string, content: string | Uint8Array): { file: ServedFile<Scope>; digest: string } {
  const bytes = typeof content === 'string' ? encoder.encode(content) : content;
  // Only a file whose extension says nothing is decoded now: its MIME type depends on whether it is text.
  const mimeType = knownMimeType(path) ?? mimeTypeOf(path, typeof content === 'string' || textOf(bytes) !== undefined);
  const textual = servedAsText(mimeType);
  const body = typeof content === 'string' ? (textual ? content : bytes) : textual ? textOnRead(bytes) : bytes;
  const digest = `sha256:${hex(hashing().sha256Of(bytes))}`;
  return { file: { uri: `${root}/${path}`, path, mimeType, size: bytes.length, body }, digest };
}

/** Each directory of the skill (its root included) with its direct children, files and subdirectories alike. */
function directoriesOf<Scope>(root: string, files: readonly ServedFile<Scope>[]): Map<string, JsonObject[]> {
  const directories = new Map<string, JsonObject[]>([[root, []]]);
  for (const file of files) {
    const segments = file.path.split('/');
    let dir = root;
    for (let i = 0; i < segments.length - 1; i++) {
      const child = `${dir}/${segments[i]}`;
      if (!directories.has(child)) {
        directories.set(child, []);
        directories.get(dir)!.push({ uri: child, name: segments[i]!, mimeType: DIRECTORY_MIME_TYPE });
      }
      dir = child;
    }
    const meta: JsonObject = { uri: file.uri, name: segments[segments.length - 1]!, mimeType: file.mimeType };
    if (file.size !== undefined) meta.size = file.size;
    directories.get(dir)!.push(meta);
  }
  for (const children of directories.values()) children.sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : 1)); // by code unit, as the entry's files
  return directories;
}

/** Checks a skill and computes what it serves; throws a SkillError naming the file and the rule. `where` names its source. */
export async function buildSkill<Scope>(definition: SkillDefinition<Scope>, where = definition.path): Promise<Skill<Scope>> {
  const segments = checkSkillPath(definition.path, where);
  const root = `skill://${definition.path}`;
  const paths = Object.keys(definition.files).sort((a, b) => (a === 'SKILL.md' ? -1 : b === 'SKILL.md' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const skillMd = definition.files['SKILL.md'];
  if (skillMd === undefined) throw new SkillError(where, 'a skill must contain a SKILL.md file at its root');
  if (typeof skillMd === 'function') throw new SkillError(`${where}/SKILL.md`, 'SKILL.md must be text or bytes, even in a dynamic skill (its frontmatter is listed)');
  const text = typeof skillMd === 'string' ? skillMd : textOf(skillMd);
  if (text === undefined) throw new SkillError(`${where}/SKILL.md`, 'SKILL.md must be valid UTF-8');
  const frontmatter = skillFrontmatter(text, `${where}/SKILL.md`, segments[segments.length - 1]!);
  await loadCrypto();
  const files: ServedFile<Scope>[] = [];
  const resources: JsonObject[] = [];
  let total = 0;
  for (const path of paths) {
    checkFilePath(path, where);
    const content = definition.files[path]!;
    if (typeof content === 'function') {
      files.push({ uri: `${root}/${path}`, path, mimeType: mimeTypeOf(path, true), size: undefined, body: content });
    } else {
      const { file, digest } = staticFile<Scope>(root, path, content);
      files.push(file);
      resources.push({ uri: file.uri, digest, size: file.size! });
      total += file.size!;
    }
    checkLimits(files.length, total, where);
  }
  const dynamic = files.length > resources.length;
  const uri = `${root}/SKILL.md`;
  const entry: JsonObject = { uri, frontmatter, resources: dynamic ? 'dynamic' : resources };
  if (definition.visible !== undefined && typeof definition.visible !== 'function') throw new SkillError(where, 'visible must be a function');
  return { uri, root, frontmatter, files, directories: directoriesOf(root, files), entry, visible: definition.visible };
}
