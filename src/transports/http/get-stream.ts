/**
 * GET on the MCP endpoint (2025 only; 2026 has no GET). With Last-Event-ID it resumes a stream
 * (SEP-1699); without, it is the session's notification stream: list changes and updates of
 * subscribed resources, one per session (a second is 409). Both pass the same gate as a POST
 * (Host/Origin, Accept, the scope factory) and belong to the presented Mcp-Session-Id.
 */
import { decideEra } from '../../protocol/era.js';
import type { MiniMCP } from '../../server.js';
import type { StreamReader } from '../../state/replay.js';
import type { Exchange } from './exchange.js';
import { ACCEPTS_SSE, acceptedTypes } from './media-types.js';
import type { Settings } from './options.js';
import { isHttpError, refuse, refuseScope } from './refusals.js';
import { IdleKeepAlive, SSE_HEADERS, streamOwner } from './sse.js';
import { principalFor } from './auth-gate.js';

/** A GET that carries a session id or a Last-Event-ID (anything else is 405 at the gate). */
export async function serveGet<Scope>(mcp: MiniMCP<Scope>, settings: Settings, ex: Exchange<Scope>): Promise<void> {
  if (decideEra(undefined, ex) === 'modern') {
    return refuse(ex, 405, -32600, 'Method Not Allowed: this MCP endpoint only accepts POST', { allow: 'POST' }); // 2026 has no GET
  }
  if (!(acceptedTypes(ex.get('accept')) & ACCEPTS_SSE)) return refuse(ex, 406, -32600, 'Not Acceptable: Accept must allow text/event-stream');
  let principal: string;
  try {
    const auth = await settings.auth?.authenticate(ex);
    principal = await principalFor(mcp, await ex.scope(), auth, ex);
  } catch (error) {
    if (!isHttpError(error) && ex.fail?.(error)) return;
    return refuseScope(ex, settings, error);
  }
  const lastEventId = ex.get('last-event-id');
  if (lastEventId !== undefined) return resume(settings, ex, principal, lastEventId);
  return notifications(mcp, settings, ex, principal, ex.get('mcp-session-id')!);
}

/** The session's notification stream, until the client goes away. */
async function notifications<Scope>(mcp: MiniMCP<Scope>, settings: Settings, ex: Exchange<Scope>, principal: string, session: string): Promise<void> {
  const idle = new IdleKeepAlive(ex);
  const watch = await mcp.watchSession(session, principal, (message) => {
    ex.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    idle.sent();
  });
  if (watch === 'unknown') return refuse(ex, 404, -32600, 'Session not found: start a new one with initialize');
  if (watch === 'busy') return refuse(ex, 409, -32600, 'Conflict: this session already has its GET stream open');
  if (ex.signal.aborted) return watch.close();
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
}

/**
 * GET with Last-Event-ID (2025, SEP-1699): replays what a closed stream kept after that event, then
 * follows the stream live until its reply. The GET passes the same gate as a POST (Host/Origin,
 * scope factory); the stream must belong to the same Mcp-Session-Id.
 */
async function resume<Scope>(settings: Settings, ex: Exchange<Scope>, principal: string, lastEventId: string): Promise<void> {
  const session = ex.get('mcp-session-id');
  const found = await settings.events.resume(lastEventId.trim(), streamOwner(principal, session));
  if (found === undefined) return refuse(ex, 404, -32600, 'Not Found: no resumable stream for this Last-Event-ID and session');
  const { missed, done } = found;
  if (done && missed.length === 0) return ex.respond(204, undefined, undefined); // nothing more: stop reconnecting
  if (ex.signal.aborted) return;
  ex.openStream(SSE_HEADERS);
  ex.write(`retry: ${settings.sseRetryMs}\n\n`); // sends the headers at once, even with nothing to replay
  for (const frame of missed) ex.write(frame);
  if (done) return ex.end();
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
    },
  };
  const letGo = found.follow(reader);
  ex.signal.addEventListener('abort', gone);
}

