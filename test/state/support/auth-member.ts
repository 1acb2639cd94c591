/**
 * One cluster member protected by `minimcp/auth`: the state server (test/state/support/server.ts) on
 * Redis, plus a task tool, behind `oauthResourceServer` trusting AUTH_ISSUER's tokens for AUTH_RESOURCE
 * (the one canonical URI every member shares, as behind a real balancer). No `scope` function: the
 * principal comes from the token alone. Prints `READY <url>`; every response carries `x-member: <pid>`.
 */
import { oauthResourceServer } from '../../../src/auth/index.js';
import { redisState } from '../../../src/redis/index.js';
import { serve } from '../../../src/transports/http/node.js';
import { createStateServer } from './server.js';

const state = await redisState({ url: process.env.REDIS_URL!, prefix: process.env.MINIMCP_REDIS_PREFIX, onError: () => {} });
const { mcp } = createStateServer({ state, requestState: { secret: process.env.MINIMCP_SECRET! } });
mcp.tool('later', { description: 'a task that ends at once, with the subject that started it', task: 'optional' }, async (_args, ctx) => `done for ${ctx.auth?.subject}`);
const auth = oauthResourceServer({ issuer: process.env.AUTH_ISSUER!, resource: process.env.AUTH_RESOURCE! });
const { url, server, close } = await serve(mcp, { port: 0, host: '127.0.0.1', keepAliveMs: 5_000, auth });
server.prependListener('request', (_req, res) => res.setHeader('x-member', String(process.pid)));
console.log(`READY ${url}`);
process.once('SIGTERM', () => void close().then(() => state.close()).finally(() => process.exit(0)));
