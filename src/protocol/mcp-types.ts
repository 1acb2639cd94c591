/** MCP wire shapes MiniMCP reads or writes (the subset a server needs; extra fields pass through). */
import type { JsonObject, JsonRpcMessage } from './jsonrpc.js';

/** A value now, or a promise of it: the synchronous path stays synchronous when a step needs no wait. */
export type MaybePromise<T> = T | Promise<T>;

/** The channel back to one client: notifications and 2025 server requests tied to a message. */
export type Send = (message: JsonRpcMessage) => void;

export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency',
];
/** A level's rank in LOGGING_LEVELS (higher is more severe); -1 for a name that is no level. */
export const levelRank = (level: string): number => LOGGING_LEVELS.indexOf(level as LoggingLevel);

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent { type: 'text'; text: string; annotations?: Annotations; _meta?: JsonObject }
export interface ImageContent { type: 'image'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface AudioContent { type: 'audio'; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}
export interface TextResourceContents { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
export interface BlobResourceContents { uri: string; mimeType?: string; blob: string; _meta?: JsonObject }
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: JsonObject;
}

export interface PromptMessage { role: 'user' | 'assistant'; content: ContentBlock }
export interface GetPromptResult { description?: string; messages: PromptMessage[]; _meta?: JsonObject }
export interface ReadResourceResult { contents: ResourceContents[]; _meta?: JsonObject }

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { context?: JsonObject; tools?: JsonObject };
  elicitation?: { form?: JsonObject; url?: JsonObject };
  experimental?: JsonObject;
  extensions?: JsonObject;
  [key: string]: unknown;
}

/** Server-to-client request params and results (elicitation, sampling, roots). */
export interface ElicitParams {
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: JsonObject;
  url?: string;
  elicitationId?: string;
  [key: string]: unknown;
}
export interface ElicitResult { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown>; [key: string]: unknown }
export interface SamplingMessage { role: 'user' | 'assistant'; content: JsonObject | JsonObject[] }
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  [key: string]: unknown;
}
export interface CreateMessageResult { role: 'user' | 'assistant'; content: JsonObject | JsonObject[]; model: string; [key: string]: unknown }
export interface Root { uri: string; name?: string }
export interface ListRootsResult { roots: Root[]; [key: string]: unknown }

/** How long a 2026 client may cache a list or read result, and who may share that cache. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}
