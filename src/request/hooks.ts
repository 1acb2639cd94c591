/**
 * The server's hooks (`mcp.use()`) around a method. The synchronous path stays synchronous: no
 * promise is made unless a hook or the handler returns one.
 */
import type { Core, MethodCall, MethodSpec, RequestInfo } from './core.js';
import type { JsonObject } from '../protocol/jsonrpc.js';

/**
 * The hooks around the method, synchronous as long as each of them is: a hook or a handler that
 * returns a promise makes the rest wait for it, and only then is a promise made.
 */
export function runHooked<Scope>(core: Core<Scope>, spec: MethodSpec, call: MethodCall<Scope>, request: RequestInfo, from = 0): JsonObject | Promise<JsonObject> {
  const hooks = core.hooks;
  for (let i = from; i < hooks.length; i++) {
    const pending = hooks[i]!.before?.(request, call.ctx);
    if (pending instanceof Promise) return pending.then(() => runHooked(core, spec, call, request, i + 1));
  }
  const result = spec.run(core, call);
  return result instanceof Promise ? result.then((value) => runAfter(core, call, request, value, 0)) : runAfter(core, call, request, result, 0);
}

function runAfter<Scope>(core: Core<Scope>, call: MethodCall<Scope>, request: RequestInfo, result: JsonObject, from: number): JsonObject | Promise<JsonObject> {
  const hooks = core.hooks;
  for (let i = from; i < hooks.length; i++) {
    const pending = hooks[i]!.after?.(request, result, call.ctx);
    if (pending instanceof Promise) return pending.then(() => runAfter(core, call, request, result, i + 1));
  }
  return result;
}
