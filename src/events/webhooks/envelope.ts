/** Control envelopes (SEP-3415 "Non-event webhook bodies"): a top-level `type`, and a `msg_<type>_<random>` webhook-id. */
import { randomBytes } from 'node:crypto';
import type { Delivery } from './types.js';

export type ControlEnvelope =
  | { type: 'gap'; cursor: string | null }
  | { type: 'terminated'; error: { code: number; message: string; data?: unknown } }
  | { type: 'verification'; challenge: string };

type Fields<T extends ControlEnvelope['type']> = Omit<Extract<ControlEnvelope, { type: T }>, 'type'>;

/** A delivery for a control envelope, with a fresh per-message id (receivers deduplicate its retries by it). */
export function controlEnvelope<T extends ControlEnvelope['type']>(type: T, fields: Fields<T>): Delivery {
  return { webhookId: `msg_${type}_${randomBytes(12).toString('hex')}`, body: { type, ...fields } };
}
