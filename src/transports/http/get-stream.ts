/**
 * GET on the MCP endpoint (2025 only; 2026 has no GET). With Last-Event-ID it resumes a stream
 * (SEP-1699); without, it is the session's notification stream: list changes and updates of
 * subscribed resources, one per session (a second is 409). Both pass the same gate as a POST
 * (Host/Origin, Accept, the scope factory) and belong to the presented Mcp-Session-Id.
 */
import { decideEra } from '../../protocol/era.js';
import { revisionOf } from '../../protocol/revisions/index.js';
import type { MiniMCP } from '../../server.js';
import type { StreamReader } from '../../state/replay.js';
import type { Exchange } from './exchange.js';
import { ACCEPTS_SSE, acceptedTypes } from './media-types.js';
import type { Settings } from './options.js';
import { isHttpError, refuse, refuseRate, refuseScope } from './refusals.js';
import { rateKey } from '../../limits/rate-limit.js';
import type { AuthInfo } from '../../protocol/auth-info.js';
import { IdleKeepAlive, SSE_HEADERS, streamOwner } from './sse.js';
import { principalFor } from './auth-gate.js';

/** A GET that carries a session id or a Last-Event-ID (anything else is 405 at the gate). */
export async function serveGet<Scope>(mcp: MiniMCP<Scope>, settings: Settings, ex: Exchange<Scope>): Promise<void> {
  if (!revisionOf(decideEra(undefined, ex)).servesGet) {
    return refuse(ex, 405, -32600, 'Method Not Allowed: this MCP endpoint only accepts POST', { allow: 'POST' }); // 2026 has no GET
  }
  if (!(acceptedTypes(ex.get('accept')) & ACCEPTS_SSE)) return refuse(ex, 406, -32600, 'Not Acceptable: Accept must allow text/event-stream');
  let principal: string;
  let auth: AuthInfo | undefined;
  try {
    auth = await settings.auth?.authenticate(ex, mcp.state);
    principal = await principalFor(mcp, await ex.scope(auth), auth, ex);
  } catch (error) {
    if (!isHttpError(error) && ex.fail?.(error)) return;
    return refuseScope(ex, settings, error);
  }
  const limited = await mcp.rates?.check(rateKey(principal, auth), 0);
  if (limited !== undefined) return refuseRate(ex, limited);
  // A GET stream takes a place in the quota listen streams and tasks/result waits share, until it ends.
  const release = mcp.holdStream(principal);
  if (typeof release !== 'function') return refuse(ex, 503, release.code, release.message, { 'retry-after': settings.retryAfter });
  ex.signal.addEventListener('abort', release, { once: true });
  const lastEventId = ex.get('last-event-id');
  let open = false;
  try {
    open = lastEventId !== undefined
      ? await resume(settings, ex, principal, lastEventId, release)
      : await notifications(mcp, settings, ex, principal, ex.get('mcp-session-id')!);
  } finally {
    if (!open) release();
  }
}

/** The session's notification stream, until the client goes away; false when it was not opened. */
async function notifications<Scope>(mcp: MiniMCP<Scope>, settings: Settings, ex: Exchange<Scope>, principal: string, session: string): Promise<boolean> {
  const idle = new IdleKeepAlive(ex);
  const watch = await mcp.watchSession(session, principal, (message) => {
    ex.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    idle.sent();
  });
  if (watch === 'unknown') return refused(ex, 404, 'Session not found: start a new one with initialize');
  if (watch === 'busy') return refused(ex, 409, 'Conflict: this session already has its GET stream open');
  if (ex.signal.aborted) return (watch.close(), false);
  ex.openStream(SSE_HEADERS);
  ex.write(`retry: ${settings.sseRetryMs}\n\n`); // sends the headers at once
  // Each keep-alive renews the claim, so a shared claim outlives no dead instance by long.
  const keepAlive = setInterval(() => {
    idle.tick();
    watch.claim().catch(settings.onError);
  }, settings.keepAliveMs);
  ex.signal.addEventListener('abort', () => {
    clearInterval(keepAlive);
    watch.close();
  }, { once: true });
  return true;
}

/** A refusal (-32600) of a GET that opens no stream. */
function refused(ex: Exchange<unknown>, status: number, message: string): false {
  refuse(ex, status, -32600, message);
  return false;
}

/**
 * GET with Last-Event-ID (2025, SEP-1699): replays what a closed stream kept after that event, then
 * follows the stream live until its reply. The GET passes the same gate as a POST (Host/Origin,
 * scope factory); the stream must belong to the same Mcp-Session-Id. False when no stream stays
 * open; otherwise `release` is called when it ends.
 */
async function resume<Scope>(settings: Settings, ex: Exchange<Scope>, principal: string, lastEventId: string, release: () => void): Promise<boolean> {
  const session = ex.get('mcp-session-id');
  const found = await settings.events.resume(lastEventId.trim(), streamOwner(principal, session));
  if (found === undefined) return refused(ex, 404, 'Not Found: no resumable stream for this Last-Event-ID and session');
  const { missed, done } = found;
  if (done && missed.length === 0) return (ex.respond(204, undefined, undefined), false); // nothing more: stop reconnecting
  if (ex.signal.aborted) return false;
  ex.openStream(SSE_HEADERS);
  ex.write(`retry: ${settings.sseRetryMs}\n\n`); // sends the headers at once, even with nothing to replay
  for (const frame of missed) ex.write(frame);
  if (done) return (ex.end(), false);
  const idle = new IdleKeepAlive(ex);
  const keepAlive = setInterval(() => idle.tick(), settings.keepAliveMs);
  const gone = (): void => {
    clearInterval(keepAlive);
    letGo(); // the events stay for the next resume
  };
  const reader: StreamReader = {
    write: (text) => {
      ex.write(text);
      idle.sent();
    },
    end: () => {
      clearInterval(keepAlive);
      ex.signal.removeEventListener('abort', gone);
      ex.end();
      release();
    },
  };
  const letGo = found.follow(reader);
  ex.signal.addEventListener('abort', gone);
  return true;
}

