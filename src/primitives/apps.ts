/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): a tool names a `ui://` resource that holds one
 * HTML page, and a host that supports the extension renders the tool's results with that page in a
 * sandboxed frame. These helpers write the wire shapes: the MIME type, `_meta.ui` on the tool (with the
 * older flat key) and on the resource (listing and contents), and read the client's support from `ctx`.
 */
import type { Context } from '../context/context.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { SchemaLike } from '../schema/standard-schema.js';
import type { ResourceOptions, ResourceRegistry } from './resources.js';
import type { ToolHandler, ToolOptions, ToolRegistry } from './tools.js';
import type { Caller } from './visibility.js';
import type { MaybePromise } from '../protocol/mcp-types.js';

/** The MIME type of an app's HTML. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The extension's id, under `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The flat `_meta` key older hosts read instead of `_meta.ui.resourceUri`; written too, for them. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** Origins the page may reach; anything not listed is blocked by the host. */
export interface AppCsp {
  /** fetch, XHR, WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts, media. */
  resourceDomains?: string[];
  /** Nested frames (`frame-src`). */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/** Browser features the page asks for; a host may refuse them. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** `_meta.ui` of an app resource. */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated origin for the page; its format is the host's to define. */
  domain?: string;
  /** Whether the page wants the host's border and background. */
  prefersBorder?: boolean;
}

/** Who may call an app's tool: the model, the app itself, or both (the default). */
export type AppToolVisibility = 'model' | 'app';

export interface AppResourceOptions<Scope = unknown> extends Omit<ResourceOptions<Scope>, 'mimeType' | 'size'>, AppResourceMeta {}

/** The page: fixed text, or made per read. */
export type AppHtml<Scope> = string | ((uri: string, ctx: Context<Scope>) => MaybePromise<string>);

export interface AppToolOptions<In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined, Scope = unknown>
  extends ToolOptions<In, Out, Scope> {
  /** The `ui://` URI of the app resource that renders this tool's results. */
  app: string;
  /** Omitted means both. `['app']` hides the tool from the model; the host still lets the app call it. */
  visibility?: AppToolVisibility[];
}

/** An app resource for `addApp()`: its URI, its page and its resource options. */
export interface AppDefinition<Scope = unknown> extends AppResourceOptions<Scope> {
  uri: string;
  html: AppHtml<Scope>;
}

/** The client's settings for the extension (`{ mimeTypes }`), from `ctx` or a visibility rule's caller; undefined without support. */
export function appsCapability(caller: Pick<Caller<unknown>, 'client'>): { mimeTypes?: string[]; [key: string]: unknown } | undefined {
  const settings = (caller.client.capabilities.extensions as JsonObject | undefined)?.[APPS_EXTENSION];
  return typeof settings === 'object' && settings !== null && !Array.isArray(settings) ? settings as JsonObject : undefined;
}

/** Whether the client renders MCP Apps pages: it declared the extension with the app MIME type. */
export function supportsApps(caller: Pick<Caller<unknown>, 'client'>): boolean {
  const types = appsCapability(caller)?.mimeTypes;
  return Array.isArray(types) && types.includes(APP_MIME_TYPE);
}

function checkUiUri(uri: unknown, what: string): string {
  if (typeof uri !== 'string' || !/^ui:\/\/[^\s]+$/.test(uri)) throw new Error(`${what} must be a ui:// URI, got ${JSON.stringify(uri)}`);
  return uri;
}

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSION_KEYS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** `_meta.ui` of a resource from its options, checked (undefined when nothing is set). */
function resourceUi(uri: string, { csp, permissions, domain, prefersBorder }: AppResourceMeta): JsonObject | undefined {
  const ui: JsonObject = {};
  if (csp !== undefined) {
    const out: JsonObject = {};
    for (const key of Object.keys(csp)) {
      const value = (csp as JsonObject)[key];
      if (!(CSP_KEYS as readonly string[]).includes(key) || !isStringArray(value)) {
        throw new Error(`App ${uri}: csp.${key} is not one of ${CSP_KEYS.join(', ')} with an array of origins`);
      }
      out[key] = [...value];
    }
    ui.csp = out;
  }
  if (permissions !== undefined) {
    const out: JsonObject = {};
    for (const key of Object.keys(permissions)) {
      if (!(PERMISSION_KEYS as readonly string[]).includes(key)) throw new Error(`App ${uri}: unknown permission ${key} (${PERMISSION_KEYS.join(', ')})`);
      out[key] = {};
    }
    ui.permissions = out;
  }
  if (domain !== undefined) {
    if (typeof domain !== 'string' || domain === '') throw new Error(`App ${uri}: domain must be a non-empty string`);
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') throw new Error(`App ${uri}: prefersBorder must be a boolean`);
    ui.prefersBorder = prefersBorder;
  }
  return Object.keys(ui).length ? ui : undefined;
}

/** Where an app is registered: a server's tools and resources (a MiniMCP is one). */
export interface AppHost<Scope> {
  readonly tools: { add(...definition: Parameters<ToolRegistry<Scope>['register']>): () => boolean };
  readonly resources: { add(...resource: Parameters<ResourceRegistry<Scope>['add']>): () => boolean };
}

/**
 * Registers an app's page as a `ui://` resource served as `text/html;profile=mcp-app`. `csp`,
 * `permissions`, `domain` and `prefersBorder` go to `_meta.ui` on both the listing and the contents
 * (hosts prefer the contents). Returns a function that removes it.
 */
export function addAppResource<Scope>(mcp: AppHost<Scope>, uri: string, options: AppResourceOptions<Scope>, html: AppHtml<Scope>): () => boolean {
  checkUiUri(uri, 'An app resource URI');
  if (typeof html !== 'string' && typeof html !== 'function') throw new Error(`App ${uri}: html must be a string or a function`);
  const { csp, permissions, domain, prefersBorder, ...resource } = options;
  const ui = resourceUi(uri, { csp, permissions, domain, prefersBorder });
  const contentsOf = (text: unknown) => {
    if (typeof text !== 'string') throw new Error(`App ${uri}: the page must be a string of HTML`);
    const item: JsonObject = { uri, mimeType: APP_MIME_TYPE, text };
    if (ui) item._meta = { ui };
    return { contents: [item] };
  };
  const read = typeof html === 'string'
    ? () => contentsOf(html)
    : (requested: string, ctx: Context<Scope>) => {
      const text = html(requested, ctx);
      return text instanceof Promise ? text.then(contentsOf) : contentsOf(text);
    };
  const _meta = ui ? { ...resource._meta, ui } : resource._meta;
  return mcp.resources.add(uri, { ...resource, mimeType: APP_MIME_TYPE, ...(_meta ? { _meta } : {}) }, read);
}

/**
 * Registers a tool whose results a host renders with the app at `options.app`: `_meta.ui.resourceUri`
 * (and the older `_meta["ui/resourceUri"]`) and `_meta.ui.visibility`. Returns a function that removes it.
 */
export function addAppTool<Scope, In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined>(
  mcp: AppHost<Scope>,
  name: string,
  options: AppToolOptions<In, Out, Scope>,
  handler: ToolHandler<Scope, In, Out>,
): () => boolean {
  const { app, visibility, ...tool } = options;
  const resourceUri = checkUiUri(app, `Tool "${name}": app`);
  if (visibility !== undefined && (!Array.isArray(visibility) || !visibility.every((v) => v === 'model' || v === 'app'))) {
    throw new Error(`Tool "${name}": visibility must be an array of "model" and "app"`);
  }
  const given = tool._meta?.ui;
  const ui: JsonObject = { ...(typeof given === 'object' && given !== null ? given as JsonObject : {}), resourceUri };
  if (visibility !== undefined) ui.visibility = [...new Set(visibility)];
  const _meta = { ...tool._meta, ui, [LEGACY_RESOURCE_URI_KEY]: resourceUri };
  return mcp.tools.add({ ...tool, _meta, name, handler } as never);
}

/** Registers an app's page and the tool that shows it, in one call. Returns a function that removes both. */
export function addApp<Scope, In extends SchemaLike | undefined = undefined, Out extends SchemaLike | undefined = undefined>(
  mcp: AppHost<Scope>,
  app: AppDefinition<Scope>,
  name: string,
  options: Omit<AppToolOptions<In, Out, Scope>, 'app'>,
  handler: ToolHandler<Scope, In, Out>,
): () => boolean {
  const { uri, html, ...resource } = app;
  const removeResource = addAppResource(mcp, uri, resource, html);
  let removeTool: () => boolean;
  try {
    removeTool = addAppTool(mcp, name, { ...options, app: uri } as AppToolOptions<In, Out, Scope>, handler);
  } catch (error) {
    removeResource(); // all or nothing
    throw error;
  }
  return () => {
    const tool = removeTool();
    return removeResource() || tool;
  };
}
