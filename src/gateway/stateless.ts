/**
 * What a 2026-07-28 (stateless) upstream needs on every request, whatever carries it: the `_meta`
 * envelope, with the caller's own client capabilities (so the upstream refuses, -32021, what the
 * caller could not answer), and `input_required` results answered by asking the caller and retrying
 * with the answers under the upstream's own keys.
 */
import { isObject, type JsonObject } from '../protocol/jsonrpc.js';
import { META } from '../protocol/versions.js';
import { BRIDGED_CAPABILITIES, GATEWAY_INFO, UPSTREAM_STATELESS_VERSION } from './handshake.js';
import { type CallHooks, type UpstreamAsk, UpstreamUnavailable } from './types.js';
import { followTask, type UpstreamSend } from './upstream-task.js';

/** How many `input_required` rounds one request may take before the gateway gives up. */
const MAX_ROUNDS = 8;

export function statelessMeta(params: JsonObject, id: number, hooks: CallHooks): JsonObject {
  return {
    ...params,
    _meta: {
      ...(isObject(params._meta) ? params._meta : {}),
      progressToken: id,
      [META.protocolVersion]: UPSTREAM_STATELESS_VERSION,
      [META.clientCapabilities]: hooks.capabilities ?? BRIDGED_CAPABILITIES,
      [META.clientInfo]: GATEWAY_INFO,
      [META.logLevel]: 'debug',
    },
  };
}

/** Sends, and while the upstream answers `input_required`, asks the caller and sends again; follows a task it creates. */
export async function withInputRounds(name: string, method: string, params: JsonObject, hooks: CallHooks, send: UpstreamSend): Promise<JsonObject> {
  let sent = params;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = await send(method, sent);
    // The upstream ran the call as a task (the caller declared the tasks extension): its end is the answer.
    if (result.resultType === 'task') {
      hooks.toTask?.();
      return followTask(name, result, hooks, send);
    }
    if (result.resultType !== 'input_required') return withoutResultType(result);
    sent = await answered(name, params, result, hooks);
  }
  throw new UpstreamUnavailable(`Upstream ${name} asked for input more than ${MAX_ROUNDS} times`);
}

async function answered(name: string, params: JsonObject, result: JsonObject, hooks: CallHooks): Promise<JsonObject> {
  const requests = isObject(result.inputRequests) ? result.inputRequests : {};
  const entries = Object.entries(requests);
  if (entries.some(([, r]) => !isObject(r)) || hooks.ask === undefined) throw new UpstreamUnavailable(`Upstream ${name} asked for input the gateway cannot pass on`);
  // All at once, as a 2026 client answers them: the caller's MRTR round then carries every question.
  const answers = await Promise.all(entries.map(([key, r]) => hooks.ask!((r as JsonObject).method as UpstreamAsk, isObject((r as JsonObject).params) ? ((r as JsonObject).params as JsonObject) : {}, key)));
  const inputResponses: JsonObject = {};
  entries.forEach(([key], i) => {
    inputResponses[key] = answers[i];
  });
  const retry: JsonObject = { ...params, inputResponses };
  if (typeof result.requestState === 'string') retry.requestState = result.requestState;
  return retry;
}

function withoutResultType(result: JsonObject): JsonObject {
  if (!('resultType' in result)) return result;
  const { resultType: _r, ...rest } = result;
  return rest;
}
