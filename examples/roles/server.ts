/**
 * Tools, prompts and resources that depend on who is asking. Each bearer token names a user with roles;
 * the scope factory puts that user in `ctx.scope`, and `visible` rules read the roles from it:
 *
 * - everyone sees `whoami` and the `docs://handbook` resource;
 * - only `admin` sees `delete_user`, the `incident_report` prompt and `audit://{day}`;
 * - the server-wide filter hides anything whose `_meta` names a role the caller lacks.
 *
 * To a caller who may not see it, a hidden primitive is simply not there: it is missing from the lists,
 * and calling, reading or completing it gets the answer an unknown name gets (-32602).
 */
import { ErrorCode, McpError, MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';

export interface User {
  id: string;
  roles: string[];
}
export interface RolesScope {
  user: User;
}

/** Demo tokens; a real server verifies a JWT and reads roles from its claims. */
export const TOKENS: Readonly<Record<string, User>> = {
  'token-ada': { id: 'ada', roles: ['admin', 'billing'] },
  'token-gus': { id: 'gus', roles: [] },
};

const hasRole = (role: string) => ({ scope }: { scope: RolesScope }) => scope.user.roles.includes(role);

export function createRolesMcp(): MiniMCP<RolesScope> {
  const mcp = new MiniMCP<RolesScope>({
    name: 'minimcp-roles',
    version: '1.0.0',
    // Who is asking: sessions, streams, MRTR state, cancellation and every per-principal quota are
    // bound to it. Without it all users are one anonymous principal and share (or take) each other's.
    principal: (scope) => scope?.user.id,
    // Server-wide: a primitive whose _meta asks for a role is hidden from callers without it.
    visible: ({ definition }, { scope }) => {
      const role = (definition._meta as { 'example.com/role'?: string } | undefined)?.['example.com/role'];
      return role === undefined || scope.user.roles.includes(role);
    },
  });
  mcp.tool('whoami', { description: 'Who the token belongs to' }, (_args, ctx) => `${ctx.scope.user.id} (${ctx.scope.user.roles.join(', ') || 'no roles'})`);
  mcp.tool('delete_user', {
    description: 'Deletes a user',
    input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    visible: hasRole('admin'),
  }, ({ id }) => `deleted ${String(id)}`);
  mcp.tool('refund', {
    description: 'Refunds an order',
    input: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    _meta: { 'example.com/role': 'billing' },
  }, ({ order }) => `refunded ${String(order)}`);
  mcp.prompt('incident_report', {
    description: 'Drafts an incident report',
    arguments: [{ name: 'severity', required: true }],
    complete: { severity: (value) => ['low', 'high', 'critical'].filter((s) => s.startsWith(value)) },
    visible: hasRole('admin'),
  }, ({ severity }) => `Write a ${severity} severity incident report.`);
  mcp.resource('docs://handbook', { mimeType: 'text/plain' }, () => 'Be kind.');
  mcp.resourceTemplate('audit://{day}', { mimeType: 'text/plain', visible: hasRole('admin') }, (_uri, { day }) => `audit log of ${String(day)}`);
  return mcp;
}

/** Serves the example on 127.0.0.1; `/mcp` needs `Authorization: Bearer <token>`. */
export function startRolesServer(port = 0, mcp = createRolesMcp()): Promise<RunningServer> {
  return serve(mcp, {
    port,
    scope: (req) => {
      const token = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const user = token !== undefined && Object.hasOwn(TOKENS, token) ? TOKENS[token] : undefined;
      if (!user) throw new McpError(ErrorCode.InvalidRequest, 'Unauthorized: a valid bearer token is required', undefined, 401);
      return { user };
    },
  });
}
