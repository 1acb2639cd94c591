/**
 * One cluster member for the state tests: the state server on Redis, on PORT (0: any); prints `READY <url>`.
 * CLUSTER_STATE=memory runs it on the in-memory defaults instead (same secret), to see which cluster
 * tests need the Redis pieces: `CLUSTER_STATE=memory npx vitest run test/state/cluster.test.ts`.
 * IDLE_TIMEOUT_MS and CLIENT_REQUEST_TIMEOUT_MS set those options (unset: the defaults), for the test of
 * a 2025 request nobody answers. Every response carries `x-member: <pid>`, so a test can see where
 * the balancer sent a request.
 */
import { redisState } from '../../../src/redis/index.js';
import { serve } from '../../../src/transports/http/node.js';
import { createStateServer } from './server.js';

const memory = process.env.CLUSTER_STATE === 'memory';
const state = memory ? undefined : await redisState({ url: process.env.REDIS_URL!, prefix: process.env.MINIMCP_REDIS_PREFIX, onError: () => {} });
const limit = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const idleTimeoutMs = limit('IDLE_TIMEOUT_MS');
const clientRequestTimeoutMs = limit('CLIENT_REQUEST_TIMEOUT_MS');
const { mcp } = createStateServer({
  ...(state && { state }),
  requestState: { secret: process.env.MINIMCP_SECRET! },
  ...(idleTimeoutMs !== undefined && { idleTimeoutMs }),
  ...(clientRequestTimeoutMs !== undefined && { clientRequestTimeoutMs }),
});
const { url, server, close } = await serve(mcp, { port: Number(process.env.PORT ?? 0), host: '127.0.0.1', keepAliveMs: 5_000 });
server.prependListener('request', (_req, res) => res.setHeader('x-member', String(process.pid)));
console.log(`READY ${url}`); // the harness waits for the URL
process.once('SIGTERM', () => void close().then(() => state?.close()).finally(() => process.exit(0)));
