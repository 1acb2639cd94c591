/** Turns what handlers return into MCP content, messages and resource contents, plus helpers to build them. */
import { isObject } from '../protocol/jsonrpc.js';
import type {
  Annotations, AudioContent, BlobResourceContents, CallToolResult, ContentBlock, EmbeddedResource, GetPromptResult,
  ImageContent, PromptMessage, ReadResourceResult, ResourceContents, ResourceLink, TextContent,
} from '../protocol/mcp-types.js';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);

export const isContentBlock = (v: unknown): v is ContentBlock =>
  isObject(v) && typeof v.type === 'string' && CONTENT_TYPES.has(v.type);

/** Base64 of bytes, without Buffer so it works on every runtime. */
export function toBase64(bytes: Uint8Array): string {
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
const base64Of = (data: string | Uint8Array): string => (typeof data === 'string' ? data : toBase64(data));
const withAnnotations = <T extends object>(block: T, annotations?: Annotations): T =>
  annotations ? { ...block, annotations } : block;

/** Content helpers for tool results and prompt messages. */
export const content = {
  text: (text: string, annotations?: Annotations): TextContent => withAnnotations({ type: 'text', text }, annotations),
  image: (data: string | Uint8Array, mimeType: string, annotations?: Annotations): ImageContent =>
    withAnnotations({ type: 'image', data: base64Of(data), mimeType }, annotations),
  audio: (data: string | Uint8Array, mimeType: string, annotations?: Annotations): AudioContent =>
    withAnnotations({ type: 'audio', data: base64Of(data), mimeType }, annotations),
  resourceLink: (link: Omit<ResourceLink, 'type'>): ResourceLink => ({ type: 'resource_link', ...link }),
  resource: (resource: ResourceContents, annotations?: Annotations): EmbeddedResource =>
    withAnnotations({ type: 'resource', resource }, annotations),
};

const isCallToolResult = (v: unknown): v is CallToolResult => isObject(v) && Array.isArray(v.content);

function toBlocks(value: unknown): ContentBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (isContentBlock(value)) return [value];
  if (Array.isArray(value) && value.every(isContentBlock)) return value;
  return [{ type: 'text', text: JSON.stringify(value) }];
}

/** A tool's return value as a CallToolResult; with an output schema the value is `structuredContent`. */
export function toToolResult(value: unknown, hasOutputSchema: boolean): CallToolResult {
  if (isCallToolResult(value)) return value;
  if (hasOutputSchema) {
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  }
  return { content: toBlocks(value) };
}

/** A result carrying `structured` as its structuredContent; an auto-generated JSON text block follows it. */
export function withStructured(result: CallToolResult, structured: unknown): CallToolResult {
  const text = JSON.stringify(result.structuredContent);
  const content = result.content.map((block) =>
    block.type === 'text' && block.text === text ? { ...block, text: JSON.stringify(structured) } : block);
  return { ...result, content, structuredContent: structured };
}

/** The value a tool result's output-schema check looks at. */
export const structuredOf = (value: unknown): unknown => (isCallToolResult(value) ? value.structuredContent : value);

export const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

function toMessage(item: unknown): PromptMessage {
  if (isObject(item) && (item.role === 'user' || item.role === 'assistant') && 'content' in item) {
    const c = item.content;
    return { role: item.role, content: typeof c === 'string' ? { type: 'text', text: c } : (c as ContentBlock) };
  }
  if (typeof item === 'string') return { role: 'user', content: { type: 'text', text: item } };
  if (isContentBlock(item)) return { role: 'user', content: item };
  throw new Error('A prompt returned something that is not a message, a content block or a string');
}

/** A prompt's return value as a GetPromptResult: strings become user text, arrays become several messages. */
export function toPromptResult(value: unknown, description?: string): GetPromptResult {
  if (isObject(value) && Array.isArray(value.messages)) {
    const result = value as unknown as GetPromptResult;
    return description && result.description === undefined ? { description, ...result } : result;
  }
  const messages = (Array.isArray(value) ? value : [value]).map(toMessage);
  return description ? { description, messages } : { messages };
}

function toContents(uri: string, value: unknown, mimeType: string | undefined): ResourceContents {
  if (typeof value === 'string') return { uri, mimeType: mimeType ?? 'text/plain', text: value };
  if (value instanceof Uint8Array) return { uri, mimeType: mimeType ?? 'application/octet-stream', blob: toBase64(value) };
  if (value instanceof ArrayBuffer) return toContents(uri, new Uint8Array(value), mimeType);
  if (isObject(value) && (typeof value.text === 'string' || typeof value.blob === 'string')) {
    const c = { uri, ...value } as ResourceContents;
    return c.mimeType === undefined && mimeType ? { ...c, mimeType } : c;
  }
  return { uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value) };
}

/** A resource reader's return value as a ReadResourceResult, with MIME defaults by value type. */
export function toReadResult(uri: string, value: unknown, mimeType: string | undefined): ReadResourceResult {
  if (isObject(value) && Array.isArray(value.contents)) return value as unknown as ReadResourceResult;
  const items = Array.isArray(value) ? value : [value];
  return { contents: items.map((item) => toContents(uri, item, mimeType)) as (BlobResourceContents | ResourceContents)[] };
}
