/** MiniMCP's public surface. Transports live in their own subpaths (minimcp/stdio, minimcp/http, ...). */
export { MiniMCP, type MiniMCPOptions } from './server.js';
export type {
  Connection, HandleOptions, Hooks, MessageFacts, Outcome, OutcomeSink, RequestInfo, Send, CacheSettings,
} from './core.js';
export { decideEra } from './protocol/era.js';
export { Context, getContext, type AskOptions, type ClientFacts } from './context/context.js';
export { Cancellation, type CancelSignal } from './context/cancellation.js';
export { ErrorCode, McpError, ResourceNotFoundError, isResourceNotFound } from './protocol/errors.js';
export type {
  JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId,
} from './protocol/jsonrpc.js';
export { LEGACY_VERSIONS, MODERN_VERSIONS, META, type Era } from './protocol/versions.js';
export { encodeHeaderValue, decodeHeaderValue, type HeaderLookup } from './protocol/standard-headers.js';
export { content } from './primitives/content.js';
export type { ToolOptions, ToolHandler, ToolDefinition, ToolArgs } from './primitives/tools.js';
export type { PromptOptions, PromptHandler, PromptArgument } from './primitives/prompts.js';
export type { ResourceOptions, TemplateOptions, ResourceReader, TemplateReader } from './primitives/resources.js';
export type { Completer, CompletionResult } from './primitives/completions.js';
export type { StandardSchemaV1, JsonSchema, SchemaLike, JsonSchemaConverter } from './schema/standard-schema.js';
export {
  MemoryBus, PendingRequests, RequestRegistry, EventStore, MemorySessionStore, resolveState,
  type SharedState, type BusEvent, type NotificationBus, type AnswerRoute, type CancelRoute, type Abortable,
  type SessionStore, type SessionState, type SessionPatch, type ReplayStore, type ReplayWriter, type ReplayCursor,
  type StreamReader, type MaybePromise,
} from './state/index.js';
export { CancelledError, cancelKey } from './state/cancels.js';
export * from './types.js';
