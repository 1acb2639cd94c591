/**
 * What the webhook engine can say went wrong, in the spec's words only. An endpoint's status line,
 * headers or body never appear here (SEP-3415 "Webhook delivery status": a category must not become a
 * response oracle for attacker-chosen URLs). The events layer maps these to its JSON-RPC errors.
 */

/** The six categories of `deliveryStatus.lastError` and `CallbackEndpointError.data.reason`. */
export type FailureCategory = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

/**
 * A client's subscribe parameters are unacceptable (events layer: -32602 InvalidParams). `field` names
 * the parameter; the message is one short sentence a client can act on.
 */
export class WebhookParamsError extends Error {
  constructor(
    readonly field: 'delivery.url' | 'delivery.secret' | 'body',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookParamsError';
  }
}

/**
 * The callback endpoint did not prove its intent, or could not be reached (events layer:
 * CallbackEndpointError with `data: { reason }`). Only the category travels; the cause stays here.
 */
export class CallbackEndpointError extends Error {
  constructor(readonly reason: FailureCategory) {
    super(`The callback endpoint could not be verified (${reason})`);
    this.name = 'CallbackEndpointError';
  }
}

/**
 * A bound on what the engine keeps was reached (pending deliveries per principal or in all, count or
 * bytes; verification POSTs per host). `bound` names the option, so an operator can find it.
 */
export class WebhookBoundError extends Error {
  constructor(
    readonly bound: string,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookBoundError';
  }
}
