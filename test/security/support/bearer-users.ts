/** Two users, alice and bob, each with a static bearer token: the hand-made auth the security tests use. */
import { McpError } from '../../../src/index.js';

const TOKENS: Record<string, string> = { 'token-alice': 'alice', 'token-bob': 'bob' };

/** An HTTP `scope` factory: `{ user }` for a known token, 401 otherwise. */
export function bearerUser(request: Request): { user: string } {
  const user = TOKENS[(request.headers.get('authorization') ?? '').replace(/^Bearer /, '')];
  if (!user) throw new McpError(-32600, 'Unauthorized', undefined, 401);
  return { user };
}
