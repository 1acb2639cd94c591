/**
 * One request's rounds (2026 multi-round-trip, MRTR): what earlier rounds sealed in `requestState`
 * (the client's answers and `ctx.once()` results), and sealing this round into an `input_required`
 * result once the handler asks for input the client has not given yet. A revision without rounds
 * (2025) uses only the steps: `ctx.once()` runs its function there too.
 */
import { MrtrBroker } from '../context/client-requests.js';
import { StepLedger } from '../context/steps.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities } from '../protocol/mcp-types.js';
import { loadCrypto, mrtrInputs, type RequestStateCodec } from '../signing/request-state.js';
import type { ClientRequestTracer } from '../telemetry/types.js';

/** What the rounds read of their request. */
interface RoundsOf {
  readonly method: string;
  readonly params: JsonObject;
  readonly principal: string;
}

export class Rounds {
  /** The answers the client gave so far (sealed in requestState, plus inputResponses). */
  #answers: JsonObject | undefined;
  /** `ctx.once()` results sealed by earlier rounds. */
  #sealedSteps: JsonObject | undefined;
  #steps: StepLedger | undefined;

  constructor(
    private readonly codec: RequestStateCodec,
    private readonly request: RoundsOf,
  ) {}

  /** Opens what earlier rounds sealed (`retry`: the request carries a requestState, checked here). */
  open(retry: boolean): void {
    const { method, params, principal } = this.request;
    ({ answers: this.#answers, steps: this.#sealedSteps } = mrtrInputs(this.codec, method, params, principal, retry));
  }

  /** The request's `ctx.once()` steps, with what earlier rounds sealed, built on first use. */
  steps(): StepLedger {
    return (this.#steps ??= new StepLedger(this.#sealedSteps, this.codec.stepLimits));
  }

  /** Elicitation, sampling and roots as this round asks them: answered from the client's answers, else recorded as missing. */
  broker(capabilities: ClientCapabilities, inputNeeded: () => void, trace: ClientRequestTracer | undefined): MrtrBroker {
    return new MrtrBroker(this.#answers ?? {}, capabilities, inputNeeded, trace);
  }

  /**
   * What sealing waits for: the hashing (loaded on the first round), and the `ctx.once()` steps still
   * running, so their results are sealed instead of running again.
   */
  beforeSealing(): Promise<unknown> | undefined {
    const loading = loadCrypto();
    const running = this.steps().close(); // also for a handler that reaches its first step only later
    if (running === undefined) return loading;
    return loading === undefined ? running : Promise.all([loading, running]);
  }

  /** This round as the client gets it: what is asked, and the sealed state to send back with the answers. */
  seal(broker: MrtrBroker): JsonObject {
    const { method, params, principal } = this.request;
    const requestState = this.codec.seal(method, params, principal, { answers: { ...broker.used }, steps: this.steps().sealable() });
    return { resultType: 'input_required', inputRequests: broker.inputRequests, requestState };
  }
}
