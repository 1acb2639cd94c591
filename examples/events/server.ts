/**
 * The events example: one event type, `incident.created`, offered by poll, push and webhook with
 * replay, and a tool `raise_incident` that emits one. Served by http.ts.
 */
import * as z from 'zod';
import { MiniMCP, type MiniMCPOptions } from '../../src/index.js';
import type { EventsOptions } from '../../src/events/settings.js';

/** Who is asking: the bearer token itself (a stand-in for minimcp/auth, see README.md). */
export interface IncidentScope {
  principal?: string;
}

/** The bearer token names the principal (any token is accepted); no token, anonymous. */
export function bearerScope(request: { headers: { authorization?: string | undefined } }): IncidentScope {
  const token = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  return token === undefined ? {} : { principal: token };
}

export const incidentPayload = z.object({
  id: z.string(),
  service: z.string(),
  severity: z.enum(['low', 'high']),
});

/** `options`: extra server options (the cluster's shared state and secret); `events`: heartbeat, webhooks. */
export function createIncidentServer(options: Partial<MiniMCPOptions<IncidentScope>> = {}, events: EventsOptions = {}): MiniMCP<IncidentScope> {
  const mcp = new MiniMCP<IncidentScope>({ ...options, name: 'minimcp-events', version: '1.0.0', title: 'MiniMCP events' });
  mcp.configureEvents(events);
  const incidents = mcp.event('incident.created', {
    description: 'An incident was raised; optionally only those of one service',
    input: z.object({ service: z.string().optional().describe('Only incidents of this service') }),
    payload: incidentPayload,
    delivery: events.webhooks === undefined ? ['poll', 'push'] : ['poll', 'push', 'webhook'],
    replay: true,
  });
  mcp.tool('raise_incident', {
    description: 'Raises an incident, which every matching subscription receives',
    input: z.object({ service: z.string(), severity: z.enum(['low', 'high']) }),
    output: z.object({ eventId: z.string() }),
  }, async ({ service, severity }) => {
    const id = `inc_${crypto.randomUUID().slice(0, 8)}`;
    return incidents.emit({ id, service, severity });
  });
  return mcp;
}
