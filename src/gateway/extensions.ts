/**
 * An upstream's extension methods, forwarded as they are: the methods of the extensions the gateway
 * knows (skills: `skills/list`, `skills/get`, `resources/directory/read`), served when the upstream
 * declares the extension, under the same capability; and any method named in the proxy's `methods`.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import type { AttachPoint } from './attach-point.js';
import { forward, type ForwardSettings } from './forward.js';

const KNOWN: Record<string, (settings: JsonObject) => string[]> = {
  'io.modelcontextprotocol/skills': (settings) => ['skills/list', 'skills/get', ...(settings.directoryRead === true ? ['resources/directory/read'] : [])],
};

/** Registers the forwarded methods; one already served by the server (its own, or another upstream's) is left as it is. */
export function forwardExtensions(point: AttachPoint<unknown>, settings: ForwardSettings, extra: readonly string[], known: boolean): void {
  const declared = isObject(settings.upstream.capabilities.extensions) ? settings.upstream.capabilities.extensions : {};
  const serve = (name: string, capability: { extension: string; settings?: JsonObject } | undefined) => {
    try {
      point.method(name, { mrtr: true, ...(capability !== undefined && { capability }) }, (params, ctx) => forward(settings, name, params as JsonObject, ctx));
    } catch (error) {
      point.reportError(error);
    }
  };
  for (const [id, methodsOf] of known ? Object.entries(KNOWN) : []) {
    const extension = declared[id];
    if (!isObject(extension)) continue;
    for (const name of methodsOf(extension)) serve(name, { extension: id, settings: extension });
  }
  for (const name of extra) serve(name, undefined);
}
