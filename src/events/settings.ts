/** `mcp.configureEvents()`: the extension's settings, checked once, with their documented defaults. */
import { intOption, type IntLimits } from '../option-checks.js';
import { checkErrorCodes, type EventErrorCodes } from './errors.js';
import type { EventLog } from '../state/event-log.js';
import type { WebhookSettings } from './webhook-settings.js';

export interface EventsOptions {
  /** Interval of `notifications/events/heartbeat` on push streams, at most 30 s (the text's bound). Default 15 s. */
  heartbeatMs?: number;
  /** `nextPollMs` in poll results. Default 5 s. */
  nextPollMs?: number;
  /** How often a push stream of a `source` type reads its upstream. Default `nextPollMs`. */
  sourceIntervalMs?: number;
  /** Most events one poll returns (`maxEvents` is capped to it). Default 100. */
  maxPollEvents?: number;
  /** The error code table: DEFAULT_EVENT_ERROR_CODES (SEP-3415) or DEPLOYED_EVENT_ERROR_CODES. */
  errorCodes?: EventErrorCodes;
  /** The event log; default in memory, or the shared state's (`redisState()`) when it has one. */
  log?: EventLog;
  /** Webhook delivery (`events/subscribe`); without it no event type offers webhook delivery. */
  webhooks?: WebhookSettings;
}

export interface EventSettings {
  readonly heartbeatMs: number;
  readonly nextPollMs: number;
  readonly sourceIntervalMs: number;
  readonly maxPollEvents: number;
  readonly codes: EventErrorCodes;
}

const EVENTS: IntLimits = { owner: 'Events option' };

export function resolveEventSettings(options: EventsOptions = {}): EventSettings {
  const nextPollMs = intOption(options, 'nextPollMs', 5_000, { ...EVENTS, min: 1 });
  return {
    heartbeatMs: intOption(options, 'heartbeatMs', 15_000, { ...EVENTS, min: 1, max: 30_000 }),
    nextPollMs,
    sourceIntervalMs: intOption(options, 'sourceIntervalMs', nextPollMs, { ...EVENTS, min: 1 }),
    maxPollEvents: intOption(options, 'maxPollEvents', 100, { ...EVENTS, min: 1, max: 10_000 }),
    codes: checkErrorCodes(options.errorCodes),
  };
}
