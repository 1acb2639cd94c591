/**
 * Event cursors: opaque to the client, but they are client input, so each is signed (HMAC, the
 * server's `requestState.secret`) and names the event type it belongs to. A cursor holds the log
 * position after which reading resumes (or, for a `source` type, the upstream's own cursor), and the
 * log's epoch: a cursor of a log that no longer exists (a restarted process) resumes with `truncated`.
 */
import { invalidParams } from '../protocol/errors.js';
import { textFromBase64url, toBase64url } from '../platform/base64url.js';
import type { Signer } from '../signing/request-state.js';

export interface CursorPosition {
  /** The log's position (a memory sequence number, a Redis stream id) or the upstream's cursor. */
  readonly position: string;
  /** Which log wrote it (memory: per process; Redis: per stream). */
  readonly epoch: string;
}

/** Longer cursors are refused unread: an upstream cursor is small, and a client may send anything. */
export const MAX_CURSOR_CHARS = 2_048;
const PREFIX = 'ev1.';
const encoder = new TextEncoder();

export class CursorCodec {
  constructor(private readonly signer: Signer) {}

  encode(name: string, at: CursorPosition): string {
    const body = toBase64url(encoder.encode(JSON.stringify([name, at.epoch, at.position])));
    return `${PREFIX}${body}.${toBase64url(this.signer.mac(`events-cursor\u0000${body}`))}`;
  }

  /** The position a cursor names; -32602 for anything this server did not sign for this event type. */
  decode(name: string, cursor: unknown): CursorPosition {
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_CHARS || !cursor.startsWith(PREFIX)) throw invalidCursor();
    const dot = cursor.indexOf('.', PREFIX.length);
    if (dot < 0) throw invalidCursor();
    const body = cursor.slice(PREFIX.length, dot);
    if (!this.signer.verify(`events-cursor\u0000${body}`, cursor.slice(dot + 1))) throw invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(textFromBase64url(body));
    } catch {
      throw invalidCursor();
    }
    const [of, epoch, position] = Array.isArray(parsed) ? parsed : [];
    if (of !== name || typeof epoch !== 'string' || typeof position !== 'string') throw invalidCursor();
    return { epoch, position };
  }
}

const invalidCursor = () => invalidParams('Invalid cursor');
