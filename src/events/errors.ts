/**
 * The Events extension's named errors (SEP-3415) with their typed `data`. The numbers are a table:
 * the SEP's own (-32023..-32027, in the spec's reserved range) by default; the clients deployed on the
 * design sketch and its conformance scenarios use -32011..-32015 (`DEPLOYED_EVENT_ERROR_CODES`).
 */
import { McpError } from '../protocol/errors.js';

export type EventErrorName = 'NotFound' | 'Forbidden' | 'ResourceExhausted' | 'Unsupported' | 'CallbackEndpointError';

export type EventErrorCodes = Readonly<Record<EventErrorName, number>>;

/** SEP-3415's codes. */
export const DEFAULT_EVENT_ERROR_CODES: EventErrorCodes = Object.freeze({
  NotFound: -32023,
  Forbidden: -32024,
  ResourceExhausted: -32025,
  Unsupported: -32026,
  CallbackEndpointError: -32027,
});

/** The codes of the design sketch, which ChatGPT's documentation and the conformance branch use. */
export const DEPLOYED_EVENT_ERROR_CODES: EventErrorCodes = Object.freeze({
  NotFound: -32011,
  Forbidden: -32012,
  ResourceExhausted: -32013,
  Unsupported: -32014,
  CallbackEndpointError: -32015,
});

const TABLES = [DEFAULT_EVENT_ERROR_CODES, DEPLOYED_EVENT_ERROR_CODES];

/** Why a callback endpoint failed, as the text names the categories (nothing of the endpoint's own answer). */
export type CallbackFailure = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

/** One of the two tables, whole: codes are not mixed across them. */
export function checkErrorCodes(given: EventErrorCodes | undefined): EventErrorCodes {
  if (given === undefined) return DEFAULT_EVENT_ERROR_CODES;
  const table = TABLES.find((t) => (Object.keys(t) as EventErrorName[]).every((name) => t[name] === given[name]));
  if (table === undefined) throw new TypeError('Events errorCodes must be DEFAULT_EVENT_ERROR_CODES or DEPLOYED_EVENT_ERROR_CODES');
  return table;
}

/** The errors one server answers with, by its table. */
export class EventErrors {
  constructor(readonly codes: EventErrorCodes) {}

  notFound(kind: 'event' | 'subscription', name?: string): McpError {
    const what = kind === 'event' ? `Unknown event type${name === undefined ? '' : ` ${name}`}` : 'Unknown subscription';
    return new McpError(this.codes.NotFound, what, { kind });
  }

  forbidden(message: string): McpError {
    return new McpError(this.codes.Forbidden, message);
  }

  exhausted(limit: string, max: number): McpError {
    return new McpError(this.codes.ResourceExhausted, `Too many ${limit}: at most ${max}`, { limit, max });
  }

  unsupported(feature: string, value: string): McpError {
    return new McpError(this.codes.Unsupported, `Unsupported ${feature}: ${value}`, { feature, value });
  }

  callbackFailed(reason: CallbackFailure): McpError {
    return new McpError(this.codes.CallbackEndpointError, `The callback endpoint could not be verified (${reason})`, { reason });
  }
}
