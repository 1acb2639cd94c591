/**
 * Asking the client something (elicitation, sampling, roots) from inside a handler. One API, two
 * mechanisms: 2025 sends a JSON-RPC request on the response stream and waits for the client's answer
 * (routed back by id); 2026 (MRTR) answers `input_required` and the client retries with the answers.
 */
import { ErrorCode, McpError, ProtocolError, UserError } from '../protocol/errors.js';
import type { CancelSignal } from '../platform/cancellation.js';
import type { AnswerRoute } from '../state/answers.js';
import { isObject, type JsonObject, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../protocol/mcp-types.js';
import type { ClientRequestTracer } from '../telemetry/types.js';

export type ClientMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** The client capability a server-to-client request needs, as a ClientCapabilities object. */
export function requiredCapability(method: ClientMethod, params: JsonObject): ClientCapabilities {
  if (method === 'roots/list') return { roots: {} };
  if (method === 'sampling/createMessage') return Array.isArray(params.tools) ? { sampling: { tools: {} } } : { sampling: {} };
  return params.mode === 'url' ? { elicitation: { url: {} } } : { elicitation: {} };
}

/** Whether `declared` covers `required` (an empty `elicitation: {}` means form mode only). */
export function hasCapability(declared: ClientCapabilities, required: ClientCapabilities): boolean {
  for (const [name, sub] of Object.entries(required)) {
    const have = declared[name] as JsonObject | undefined;
    if (typeof have !== 'object' || have === null) return false;
    for (const key of Object.keys(sub as JsonObject)) if (!(key in have)) return false;
  }
  return true;
}

export interface InputBroker {
  request(method: ClientMethod, params: JsonObject, key: string | undefined): Promise<JsonObject>;
}

/** 2025: a real request on the stream; the handler's idle timer pauses while a person answers. */
export class StreamBroker implements InputBroker {
  constructor(
    private readonly pending: AnswerRoute,
    /** Who may answer (see AnswerRoute). */
    private readonly owner: string,
    private readonly send: ((m: JsonRpcMessage) => void) | undefined,
    /** What the client declared; none (a 2025 request outside any session) means nothing may be asked. */
    private readonly capabilities: ClientCapabilities,
    private readonly timeoutMs: number,
    /** The request: its lifetime (ends the wait), and the idle clock that stops while the client answers. */
    private readonly execution: { readonly lifetime: CancelSignal; pause(): void; resume(): void },
    /** The request's trace, when the server has one: a CLIENT span per request, its context in `_meta`. */
    private readonly tracer?: ClientRequestTracer,
  ) {}

  async request(method: ClientMethod, params: JsonObject): Promise<JsonObject> {
    const needed = requiredCapability(method, params);
    if (!hasCapability(this.capabilities, needed)) {
      throw new UserError(`The client did not declare the capability ${method} needs (${Object.keys(needed).join(', ')})`);
    }
    if (!this.send) throw new UserError(`Cannot send ${method}: this transport has no stream back to the client`);
    const traced = this.tracer?.clientRequest(method, params, false);
    this.execution.pause();
    try {
      const answer = await this.pending.ask(this.owner, this.send, method, traced?.params ?? params, this.execution.lifetime, this.timeoutMs);
      if (!wellFormed(method, answer)) throw new UserError(`The client answered ${method} with a malformed result`);
      return answer;
    } catch (error) {
      traced?.span.setError(error instanceof McpError ? String(error.code) : 'client_request_failed', (error as Error)?.message);
      throw error;
    } finally {
      traced?.span.end();
      this.execution.resume();
    }
  }
}


/** Elicitation answers hold primitives (string, number, boolean) or lists of strings, nothing deeper. */
const isFormValue = (v: unknown): boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ||
  (Array.isArray(v) && v.every((item) => typeof item === 'string'));

/** Whether a client's answer has the shape of the result of `method`. */
export function wellFormed(method: ClientMethod, answer: unknown): answer is JsonObject {
  if (!isObject(answer)) return false;
  if (method === 'elicitation/create') {
    if (!['accept', 'decline', 'cancel'].includes(answer.action as string)) return false;
    return answer.content === undefined || (isObject(answer.content) && Object.values(answer.content).every(isFormValue));
  }
  if (method === 'sampling/createMessage') return typeof answer.role === 'string' && (isObject(answer.content) || Array.isArray(answer.content));
  return Array.isArray(answer.roots);
}

/**
 * 2026 MRTR: an answer present in `inputResponses` (or sealed in `requestState`) is returned at once;
 * a missing one is recorded and the handler is left waiting while the framework answers `input_required`.
 */
export class MrtrBroker implements InputBroker {
  readonly inputRequests: Record<string, { method: ClientMethod; params: JsonObject }> = {};
  /** Answers the handler actually used, to seal into the next requestState. */
  readonly used: JsonObject = {};
  #count = 0;
  #missing = false;

  constructor(
    private readonly answers: JsonObject,
    private readonly capabilities: ClientCapabilities,
    /** Called once a missing answer was recorded and sibling requests had a turn to record theirs. */
    private readonly onInputNeeded: () => void,
    /** The round's trace, when the server has one: a CLIENT span per input request, closed with the round. */
    private readonly tracer?: ClientRequestTracer,
  ) {}

  request(method: ClientMethod, params: JsonObject, key: string | undefined): Promise<JsonObject> {
    const k = key ?? `input-${++this.#count}`;
    const needed = requiredCapability(method, params);
    if (!hasCapability(this.capabilities, needed)) {
      throw new ProtocolError(
        ErrorCode.MissingRequiredClientCapability,
        `This request needs the client capability ${Object.keys(needed).join(', ')}`,
        { requiredCapabilities: needed },
        400,
      );
    }
    if (Object.hasOwn(this.answers, k)) {
      const answer = this.answers[k];
      if (!wellFormed(method, answer)) throw new ProtocolError(ErrorCode.InvalidParams, `Malformed inputResponses["${k}"] for ${method}`);
      this.used[k] = answer;
      return Promise.resolve(answer);
    }
    this.inputRequests[k] = { method, params: this.tracer?.clientRequest(method, params, true).params ?? params };
    if (!this.#missing) {
      this.#missing = true;
      setTimeout(this.onInputNeeded, 0); // let Promise.all siblings record their requests too
    }
    return new Promise<JsonObject>(() => {}); // abandoned: the retry re-runs the handler
  }
}
