/**
 * The rules a served skill must meet, checked at registration: the Agent Skills specification's
 * frontmatter fields (https://agentskills.io/specification) and SEP-2640's additions (the name is
 * the final path segment, reserved metadata keys, the per-skill limits). Each failure is an error
 * naming the file and the rule, so a bad skill never starts serving.
 */
import type { JsonObject } from '../protocol/jsonrpc.js';
import { FrontmatterError, frontmatterBlock, parseFrontmatter } from './frontmatter.js';

/** SEP-2640 §Limits: what every conforming host accepts; servers should not serve more. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

export const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

export class SkillError extends Error {
  constructor(where: string, rule: string) {
    super(`Skill ${where}: ${rule}`);
    this.name = 'SkillError';
  }
}

/** Agent Skills `name`: 1-64 characters, lowercase letters, digits and hyphens, no hyphen first, last or doubled. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** A `<skill-path>` prefix segment: RFC 3986 unreserved characters only, so the URI needs no encoding (the first is the authority). */
const PATH_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** The skill path's segments, checked: the last is the skill name. */
export function checkSkillPath(path: string, where: string): string[] {
  const segments = path.split('/');
  for (const segment of segments) {
    if (!PATH_SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new SkillError(where, `the skill path segment "${segment}" must be letters, digits, ".", "_", "~" or "-" (not "." or "..")`);
    }
  }
  return segments;
}

function checkString(frontmatter: JsonObject, field: string, max: number, where: string, required: boolean): void {
  const value = Object.hasOwn(frontmatter, field) ? frontmatter[field] : undefined; // own keys only, never a prototype's
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new SkillError(where, `frontmatter "${field}" must be a non-empty string${required ? ' (it is required)' : ''}`);
  }
  if (value.length > max) throw new SkillError(where, `frontmatter "${field}" is longer than ${max} characters`);
}

function checkMetadata(metadata: unknown, where: string): void {
  if (metadata === undefined) return;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new SkillError(where, 'frontmatter "metadata" must be a mapping of keys to string values');
  }
  for (const [key, value] of Object.entries(metadata)) {
    if (key.startsWith(RESERVED_METADATA_PREFIX)) {
      throw new SkillError(where, `frontmatter metadata key "${key}" uses the prefix ${RESERVED_METADATA_PREFIX}, reserved for MCP extensions (none defines it)`);
    }
    if (typeof value !== 'string') throw new SkillError(where, `frontmatter metadata "${key}" must be a string (quote it)`);
  }
}

/** Reads and checks a SKILL.md's frontmatter; `where` names the file in errors, `name` is the skill path's final segment. */
export function skillFrontmatter(text: string, where: string, name: string): JsonObject {
  const block = frontmatterBlock(text);
  if (!block) throw new SkillError(where, 'SKILL.md must begin with YAML frontmatter between "---" lines');
  let frontmatter: JsonObject;
  try {
    frontmatter = parseFrontmatter(block.yaml, block.firstLine);
  } catch (error) {
    if (error instanceof FrontmatterError) throw new SkillError(where, `frontmatter ${error.message}`);
    throw error;
  }
  checkString(frontmatter, 'name', 64, where, true);
  const declared = frontmatter.name as string;
  if (!SKILL_NAME.test(declared)) {
    throw new SkillError(where, `name "${declared}" must be 1-64 lowercase letters, digits and hyphens, with no hyphen at the start, at the end or twice in a row`);
  }
  if (declared !== name) throw new SkillError(where, `name "${declared}" must equal the skill's directory name "${name}"`);
  checkString(frontmatter, 'description', 1024, where, true);
  checkString(frontmatter, 'compatibility', 500, where, false);
  checkString(frontmatter, 'license', 1024, where, false);
  if (frontmatter['allowed-tools'] !== undefined && typeof frontmatter['allowed-tools'] !== 'string') {
    throw new SkillError(where, 'frontmatter "allowed-tools" must be a space-separated string');
  }
  checkMetadata(frontmatter.metadata, where);
  return frontmatter;
}

/** The per-skill limits, checked as files are added (so a huge folder stops early). */
export function checkLimits(files: number, bytes: number, where: string): void {
  if (files > MAX_SKILL_FILES) throw new SkillError(where, `more than ${MAX_SKILL_FILES} files (the extension's limit per skill, SKILL.md included)`);
  if (bytes > MAX_SKILL_BYTES) throw new SkillError(where, `more than ${MAX_SKILL_BYTES} bytes in all (16 MiB, the extension's limit per skill)`);
}
