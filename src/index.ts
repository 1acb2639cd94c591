/** MiniMCP's public surface. Transports live in their own subpaths (minimcp/stdio, minimcp/http, ...). */
export { MiniMCP, type MiniMCPOptions } from './server.js';
export type {
  MethodCapability, MethodHandler, MethodOptions, MethodParams, NotificationHandler, NotificationOptions,
} from './methods/extension.js';
export type { NotificationFacts } from './request/core.js';
export type { SkillOptions } from './skills/register.js';
export type { SkillDefinition, SkillFile } from './skills/skill.js';
export { SKILLS_EXTENSION } from './skills/serve.js';
export { EVENTS_EXTENSION } from './events/extension.js';
export { DEFAULT_EVENT_ERROR_CODES, DEPLOYED_EVENT_ERROR_CODES, type EventErrorCodes, type EventErrorName, type CallbackFailure } from './events/errors.js';
export type { DeliveryMode, EventOptions, EventSource, SourceRead, SourcedEvent } from './events/event-type.js';
export type { EventHandle } from './events/register.js';
export type { EmitOptions } from './events/service.js';
export type { EventsOptions } from './events/settings.js';
export type { WebhookSettings } from './events/webhook-settings.js';
export { MemoryEventLog, type EventLog, type LoggedEvent, type LogRead, type Retention } from './state/event-log.js';
export { SkillError, MAX_SKILL_BYTES, MAX_SKILL_FILES } from './skills/rules.js';
export type { Hooks, RequestInfo, CacheSettings } from './request/core.js';
export type { Connection, MessageFacts, Outcome, OutcomeSink, Send } from './transport.js';
export { decideEra } from './protocol/era.js';
export { Context, getContext, type AskOptions, type ClientFacts } from './context/context.js';
export { Cancellation, type CancelSignal } from './platform/cancellation.js';
export { ErrorCode, InsufficientScopeError, McpError, ProtocolError, ResourceNotFoundError, UserError, isResourceNotFound } from './protocol/errors.js';
export type { AuthInfo } from './protocol/auth-info.js';
export type {
  JsonObject, JsonRpcMessage, JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, RequestId,
} from './protocol/jsonrpc.js';
export { HANDSHAKE_VERSIONS, STATELESS_VERSIONS, META } from './protocol/versions.js';
export type { Era } from './protocol/revisions/revision.js';
export { encodeHeaderValue, decodeHeaderValue, type HeaderLookup } from './protocol/standard-headers.js';
export { content } from './primitives/content.js';
export { safeJoin } from './primitives/safe-join.js';
export type { ToolOptions, ToolHandler, ToolDefinition, ToolArgs, TaskSupport } from './primitives/tools.js';
export type { PromptOptions, PromptHandler, PromptArgument } from './primitives/prompts.js';
export type { ResourceOptions, TemplateOptions, ResourceReader, TemplateReader } from './primitives/resources.js';
export type { TemplateVariables, TemplateVariableName } from './primitives/template-variables.js';
export type { Completer, CompletionResult } from './primitives/completions.js';
export type { StandardSchemaV1, JsonSchema, SchemaLike, JsonSchemaConverter } from './schema/standard-schema.js';
export type { FromJsonSchema } from './schema/json-schema-types.js';
export { MemoryTaskStore } from './state/memory-task-store.js';
export {
  isTerminal, type TaskStore, type TaskRecord, type TaskStatus, type TaskEnd, type TaskError, type TaskInputRequest,
  type TaskPage, type CancelOutcome, type TaskMessages, type TaskBounds,
} from './state/task-store.js';
export type { TaskSettings } from './tasks/service.js';
export {
  MemoryBus, PendingRequests, RequestRegistry, EventStore, MemorySessionStore, MemoryProofStore, MemoryRateStore, resolveState,
  type RateStore, type RateLimits, type Bucket, type ProofStore, type ProofLimits, type ProofVerdict, type SharedState, type BusEvent, type NotificationBus, type AnswerRoute, type CancelRoute, type Abortable,
  type SessionStore, type SessionState, type SessionPatch, type ReplayStore, type ReplayWriter, type ReplayCursor,
  type StreamReader,
} from './state/index.js';
export { CancelledError, cancelKey } from './state/cancels.js';
export { BoundReached } from './state/bounds.js';
export { DEFAULT_RATE_LIMITS, RateLimited, RateLimiter, type RateCheck, type RateLimitOptions } from './limits/rate-limit.js';
export { DEFAULT_SESSION_LIMITS, type SessionLimits } from './state/session-limits.js';
export * from './protocol/mcp-types.js';
export {
  APP_MIME_TYPE, APPS_EXTENSION, LEGACY_RESOURCE_URI_KEY, addApp, addAppResource, addAppTool, appsCapability, supportsApps,
  type AppCsp, type AppDefinition, type AppHost, type AppHtml, type AppPermissions, type AppResourceMeta, type AppResourceOptions,
  type AppToolOptions, type AppToolVisibility,
} from './primitives/apps.js';
export type { Caller, DefaultScopes, MethodPrimitive, Primitive, PrimitiveKind, VisibilityFilter, VisibleRule } from './primitives/visibility.js';
export type {
  Telemetry, TelemetrySpan, TraceCarrier, SpanKind, Attributes, AttributeValue,
} from './telemetry/types.js';
