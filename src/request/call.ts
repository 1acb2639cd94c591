/**
 * One request, run: admitted (admission.ts) with this object as its record, into its 2025 session,
 * given a slot of the gate, then its handler with the hooks around it; the outcome goes back at once
 * or, when it waits, later to the transport's sink. What an early answer hands over is hand-off.ts,
 * the 2026 rounds are rounds.ts, and the request's facts and holdings are admitted-request.ts.
 */
import { MrtrBroker, StreamBroker, type InputBroker } from '../context/client-requests.js';
import { Context, runWithContext, type ContextHost } from '../context/context.js';
import { loadCrypto } from '../signing/request-state.js';
import type { StepLedger } from '../context/steps.js';
import { Rounds } from './rounds.js';
import type { Core, MethodCall } from './core.js';
import type { MessageFacts, OutcomeSink, Outcome } from '../transport.js';
import { internalError } from '../protocol/errors.js';
import type { JsonObject, RequestId } from '../protocol/jsonrpc.js';
import { admit } from './admission.js';
import { runHooked } from './hooks.js';
import { AdmittedRequest } from './admitted-request.js';
import type { Interrupt } from './execution.js';
import { overloaded, type Waiter } from '../limits/concurrency.js';
import { NO_REPLY, cacheHint, errorOutcome, failureOutcome, resultOutcome } from './outcome.js';
import type { HandOffHost, ReplyHandOff } from './hand-off.js';
import { ownerKey } from '../state/answers.js';
import { RequestTrace } from '../telemetry/request-trace.js';
import { stopNote } from './stop-note.js';
import type { TelemetrySpan } from '../telemetry/types.js';

/** The handler, with the hooks around it when there are any. Static, so AsyncLocalStorage.run needs no closure. */
const invoke = <Scope>(call: Call<Scope>): JsonObject | Promise<JsonObject> => call.invoke();
const invokeInContext = <Scope>(call: Call<Scope>): JsonObject | Promise<JsonObject> => runWithContext(call.ctx as Context<unknown>, invoke, call);

export class Call<Scope> extends AdmittedRequest<Scope> implements MethodCall<Scope>, ContextHost<Scope>, Waiter, HandOffHost {
  ctx!: Context<Scope>;
  readonly #sink: OutcomeSink;
  /** Waiting for the handler's promise: an interrupt now settles the request. */
  #waiting = false;
  /** The handler's promise being waited for: a late `ctx.task()` hands it off to the task. */
  #work: Promise<JsonObject> | undefined;
  #settled = false;
  /** 2026 rounds (MRTR) and `ctx.once()` steps, made on first use (rounds.ts). */
  #rounds: Rounds | undefined;
  #broker: InputBroker | undefined;
  /** What takes the handler over once the request answers early (a task: see hand-off.ts). */
  #handOff: ReplyHandOff | undefined;
  /** Spans and metrics, only when the server has the `telemetry` option. */
  #trace: RequestTrace | undefined;

  constructor(core: Core<Scope>, id: RequestId, method: string, params: JsonObject | undefined, facts: MessageFacts<Scope>, sink: OutcomeSink) {
    super(core, id, method, params, facts);
    this.#sink = sink;
  }

  get send(): MessageFacts['send'] {
    return this.#handOff?.send ?? this.facts.send;
  }
  get live(): boolean {
    return this.#handOff?.live ?? (!this.aborted && !this.ended);
  }
  get statusNote(): ((message: string) => void) | undefined {
    return this.#handOff?.statusNote;
  }
  /** Runs the request: the Outcome when it is ready at once, otherwise undefined and the sink gets it later. */
  run(): Outcome | undefined {
    const facts = this.facts;
    const telemetry = this.core.telemetry;
    if (telemetry !== undefined) this.#trace = RequestTrace.start(telemetry, this, facts.headers, this.core);
    // Sessions are signed: the first one this process sees loads the hashing, then the request goes on.
    const signed = facts.connection === undefined && (facts.session !== undefined || (facts.sessions === true && this.method === 'initialize'));
    let outcome: Outcome | undefined;
    try {
      outcome = this.#after(signed ? loadCrypto() : undefined, this.#admitted);
    } catch (error) {
      outcome = this.#unexpected(error);
    }
    return outcome === undefined ? undefined : this.finish(outcome);
  }

  /** Admission (admission.ts, with this request as its record), then into the session's state: the steps before a request holds anything. */
  #admitted(): Outcome | undefined {
    const refusal = admit(this.core, this.method, this.params, this.facts, this);
    return refusal === undefined ? this.#after(this.enterSession(), this.#enter) : errorOutcome(this.id, refusal);
  }

  /** Takes a slot (listen streams hold none) and starts; one not answered at once becomes reachable by a cancel. */
  #enter(): Outcome | undefined {
    if (this.facts.signal?.aborted) this.handleEvent();
    if (this.spec.stream) return this.#unfinished(this.start());
    const admitted = this.takeSlot(this);
    if (admitted === undefined) return this.#unfinished(undefined); // queued: slot() comes later
    if (!admitted) return errorOutcome(this.id, overloaded());
    return this.#unfinished(this.start());
  }

  #unfinished(outcome: Outcome | undefined): Outcome | undefined {
    if (outcome === undefined && !this.ended) this.becomeReachable();
    return outcome;
  }

  /** The gate's answer for a queued request: a slot, or a refusal after queueTimeoutMs. */
  slot(granted: boolean): void {
    this.slotGranted(granted);
    let outcome: Outcome | undefined;
    try {
      outcome = granted ? this.start() : errorOutcome(this.id, overloaded());
    } catch (error) {
      outcome = this.#unexpected(error);
    }
    if (outcome !== undefined) this.reply(outcome);
  }

  /** Builds the context and runs the method: a value is answered on the spot, a promise is waited for. */
  start(): Outcome | undefined {
    if (this.aborted) return this.#abortedOutcome(); // a dead connection, a cancel while queued
    const retry = this.revision.roundTrips && this.spec.mrtr === true && this.params.requestState !== undefined;
    const loading = retry ? loadCrypto() : undefined;
    if (loading !== undefined) {
      // Opening the MRTR state needs the hashing, loaded on the first round; then this runs again.
      loading.then(() => this.#resume(this.start), (error: unknown) => this.reply(this.failure(error)));
      return undefined;
    }
    try {
      // Only a later round carries answers or sealed state: a first round has none to open.
      if (this.revision.roundTrips && (retry || this.params.inputResponses !== undefined)) this.#roundsOf().open(retry);
      this.ctx = new Context<Scope>(this);
      const run = this.core.settings.asyncContext ? invokeInContext : invoke;
      const work = this.#trace === undefined ? run(this) : this.#trace.runHandler(run, this);
      const handOff = this.#handOff;
      if (handOff?.takes(work, this.#broker)) {
        this.#broker = handOff.broker; // input asked from now on waits in the hand-off
        return handOff.handOff(work);
      }
      return work instanceof Promise ? this.#wait(work) : this.#afterFanOut(this.result(work));
    } catch (error) {
      return this.#afterFanOut(this.failure(error));
    }
  }

  /**
   * The outcome now, or (returning undefined) once what this instance published so far, the changes
   * the handler raised among it, reached a shared bus: its client cannot then see a change raised
   * after the answer, on another instance, first. Nothing in flight (always, in memory): at once.
   */
  #afterFanOut(outcome: Outcome): Outcome | undefined {
    const pending = this.core.state.bus.pending?.();
    if (pending === undefined) return outcome;
    void pending.then(() => this.#deliver(outcome));
    return undefined;
  }

  /**
   * The method gives this request a hand-off (the seam in hand-off.ts): the request may answer early
   * and its handler go on. Begun at once when `now` (a 2025 task is stored before its handler runs).
   */
  outlive(make: (host: HandOffHost) => ReplyHandOff, now: boolean): void {
    this.#handOff = make(this); // the request is its own host: no object per hand-off
    if (now) this.handOffNow();
  }

  /**
   * `ctx.task()`: begin the hand-off now, so input asked from here on waits in it; a no-op for a call
   * that has none. Called while the request already waits on the handler, the hand-off's answer
   * answers the request now and the handler's end settles the rest.
   */
  handOffNow(): void {
    if (!this.#handOff?.begin()) return;
    this.#broker = this.#handOff.broker;
    if (!this.#waiting || this.#work === undefined) return;
    const outcome = this.#handOff.handOff(this.#work);
    if (outcome !== undefined) this.reply(outcome);
  }

  /**
   * `step`, a phase of this request, now, or once `loading` (the hashing, the session's state) is
   * done: then anything thrown is answered, and an outcome goes to the sink.
   */
  #after(loading: Promise<unknown> | undefined, step: (this: Call<Scope>) => Outcome | undefined): Outcome | undefined {
    if (loading === undefined) return step.call(this);
    loading.then(() => this.#resume(step), (error: unknown) => this.reply(this.#unexpected(error)));
    return undefined;
  }

  #resume(step: (this: Call<Scope>) => Outcome | undefined): void {
    let outcome: Outcome | undefined;
    try {
      outcome = step.call(this);
    } catch (error) {
      outcome = this.#unexpected(error);
    }
    if (outcome !== undefined) this.reply(outcome);
  }

  /** The method, with the hooks around it when there are any (called by `invoke`). */
  invoke(): JsonObject | Promise<JsonObject> {
    const core = this.core;
    return core.hooks.length ? runHooked(core, this.spec, this, this.info()) : this.spec.run(core, this);
  }

  /**
   * The handler returned a promise: wait for it or for the first interrupt (MRTR input,
   * cancellation, idle timeout). A listen stream ignores interrupts and has no idle clock: it ends
   * when its handler returns. (A synchronous handler cannot go idle, so the clock starts here.)
   */
  #wait(work: Promise<JsonObject>): undefined {
    this.#work = work;
    if (!this.spec.stream) {
      this.#waiting = true;
      this.core.idle.watch(this);
      // An interrupt that came while the handler ran is taken after reactions queued before it: a handler that already settled wins.
      const why = this.interrupt;
      if (why !== undefined) queueMicrotask(() => this.interrupted(why));
    }
    work.then(
      (result) => this.conclude() && this.reply(this.result(result)),
      (error: unknown) => this.conclude() && this.reply(this.failure(error)),
    );
    return undefined;
  }

  /** The first of result and interrupt wins; false for the ones that come after. */
  conclude(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#waiting = false;
    this.core.idle.unwatch(this);
    return true;
  }

  protected override interrupted(why: Interrupt): void {
    // A listen stream ends by being closed or cancelled: its normal end, not a stop worth a line.
    const note = this.ended || this.spec.stream ? undefined : stopNote(this.method, this.params, why, this.reason, this.core.settings.idleTimeoutMs);
    if (note !== undefined) this.core.reportDebug(note, this.info());
    if (!this.#waiting) return;
    const loading = why === 'input' ? this.#roundsOf().beforeSealing() : undefined;
    if (loading !== undefined) {
      loading.then(() => this.conclude() && this.reply(this.#stopped(why)), (error: unknown) => this.conclude() && this.reply(this.failure(error)));
    } else if (this.conclude()) this.reply(this.#stopped(why));
  }

  /** What an interrupted request answers: input_required (MRTR), nothing (cancelled), or an error. */
  #stopped(why: Interrupt): Outcome {
    try {
      if (why === 'aborted') return this.#abortedOutcome();
      if (why === 'timeout') throw internalError(`Request timed out after ${this.core.settings.idleTimeoutMs} ms without progress`);
      return resultOutcome(this.id, this.#roundsOf().seal(this.#broker as MrtrBroker));
    } catch (error) {
      return this.failure(error);
    }
  }

  /** The handler's result as this request answers it (shaped by its revision; `initialize` mints the session). Also its hand-off's. */
  result(result: JsonObject): Outcome {
    try {
      const outcome = resultOutcome(this.id, this.revision.shapeResult(result, cacheHint(this.core.settings.cache, this.spec.cache)));
      if (this.minting) outcome.session = this.core.sessions.mint(this.connection!, this.principal);
      return outcome;
    } catch (error) {
      return this.failure(error);
    }
  }

  /** Anything the handler threw, as this request answers it. Also its hand-off's. */
  failure(error: unknown): Outcome {
    return failureOutcome(this.core, this.id, error, this.info(), this.revision, this.ctx as Context<Scope> | undefined);
  }

  /** A failure outside the handler's own error path (a broken principal function, a bug): logged, answered -32603. */
  #unexpected(error: unknown): Outcome {
    this.core.reportError(error, this.info());
    return errorOutcome(this.id, internalError('Internal error'));
  }

  /** A request the client cancelled gets no answer; one the server stopped (shutdown, disconnect) gets an error. */
  #abortedOutcome(): Outcome {
    return this.cancelledByClient ? NO_REPLY : errorOutcome(this.id, internalError('Request cancelled'));
  }

  /** An outcome that was not ready at once, once fanned out (see #afterFanOut): the request finishes, then the sink gets it. */
  reply(outcome: Outcome): void {
    const now = this.#afterFanOut(outcome);
    if (now !== undefined) this.#deliver(now);
  }

  #deliver(outcome: Outcome): void {
    this.finish(outcome);
    try {
      this.#sink.deliver(outcome);
    } catch (error) {
      this.core.reportError(error, this.info()); // the transport failed to answer; nothing else can
    }
  }

  /** Releases what the request holds: its slot, its cancel route and its signal listener. Returns the outcome. */
  finish(outcome: Outcome): Outcome {
    this.release();
    this.#trace?.end(outcome, this.protocolVersion, this.facts);
    this.end();
    return outcome;
  }

  /** The handler's span when the server traces requests (`ctx.span`). */
  get span(): TelemetrySpan | undefined {
    return this.#trace?.handler;
  }

  // ---- what the Context reads (ContextHost); the request's facts are in AdmittedRequest ---------

  /**
   * Elicitation, sampling and roots, built on first use. 2025 asks on the stream and only a
   * client that declared the capability in its session is asked (no session: nothing declared).
   */
  broker(): InputBroker {
    if (this.#broker) return this.#broker; // a task's broker once it is one
    const core = this.core;
    const facts = this.facts;
    return (this.#broker = this.revision.roundTrips
      ? this.#roundsOf().broker(this.client.capabilities, () => this.needsInput(), this.#trace)
      : new StreamBroker(core.state.answers, ownerKey(this.principal, this.connection?.id), facts.send,
        this.connection?.clientCapabilities ?? {}, core.settings.clientRequestTimeoutMs, this, this.#trace));
  }

  /** `ctx.once()`: the request's steps, with what earlier rounds sealed (2026), built on first use. */
  steps(): StepLedger {
    return this.#roundsOf().steps();
  }

  #roundsOf(): Rounds {
    return (this.#rounds ??= new Rounds(this.core.stateCodec, this));
  }

  endStream(): void {
    if (!this.ended) this.facts.closeStream?.(); // a 2025 task's handler outlives its request and its stream
  }
}
