/**
 * Admission: the first step of every request, before it holds anything. Who asks (the principal),
 * which protocol family and revision (reused when the transport decided it), the 2025 session it
 * presented (signed, bound to the principal), the family's ladder, and the method table. What it
 * establishes is one record, the request object itself (no object per request); a refusal is an error.
 */
import type { AdmittedRequest } from './admitted-request.js';
import type { Core } from './core.js';
import type { MessageFacts } from '../transport.js';
import { decideEra, notInitialized, opensStream } from '../protocol/era.js';
import { invalidRequest, type McpError } from '../protocol/errors.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { revisionOf } from '../protocol/revisions/index.js';
import type { Revision } from '../protocol/revisions/revision.js';

export function admit<Scope>(core: Core<Scope>, method: string, params: JsonObject, facts: MessageFacts<Scope>, into: AdmittedRequest<Scope>): McpError | undefined {
  into.principal = facts.principal ?? core.principalOf(facts.scope, facts.auth);
  const era = facts.era ?? decideEra(params, facts.headers);
  const revision = revisionOf(era);
  const unknown = openSession(core, method, facts, revision, into);
  if (unknown) return unknown;
  const refusal = revision.admit(into, method, params, facts.headers, into.connection?.protocolVersion);
  if (refusal) return refusal;
  const spec = core.methods.get(method);
  if (!spec || (spec.eras !== 'both' && spec.eras !== era) || (spec.enabled && !spec.enabled(core))) return revision.methodNotFound(method);
  if (facts.requireInitialize && revision.sessions && into.connection?.protocolVersion === undefined && !opensStream(method)) return notInitialized();
  into.spec = spec;
  return undefined;
}

/** 2025: the session the client presented, checked for this principal; 2026 requests ignore one. */
function openSession<Scope>(core: Core<Scope>, method: string, facts: MessageFacts<Scope>, revision: Revision, into: AdmittedRequest<Scope>): McpError | undefined {
  into.connection = facts.connection;
  if (facts.connection !== undefined || !revision.sessions) return undefined;
  if (facts.session !== undefined) {
    into.connection = core.sessions.open(facts.session, into.principal);
    return into.connection ? undefined : invalidRequest('Session not found: start a new one with initialize', 404);
  }
  if (facts.sessions === true && method === 'initialize') {
    into.connection = {};
    into.minting = true;
  }
  return undefined;
}
