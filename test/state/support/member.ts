/**
 * One cluster member for the state tests: the state server on Redis, on PORT (0: any); prints `READY <url>`.
 * CLUSTER_STATE=memory runs it on the in-memory defaults instead (same secret), to see which cluster
 * tests need the Redis pieces: `CLUSTER_STATE=memory npx vitest run test/state/cluster.test.ts`.
 */
import { redisState } from '../../../src/redis/index.js';
import { serve } from '../../../src/transports/http/node.js';
import { createStateServer } from './server.js';

const memory = process.env.CLUSTER_STATE === 'memory';
const state = memory ? undefined : await redisState({ url: process.env.REDIS_URL!, prefix: process.env.MINIMCP_REDIS_PREFIX, onError: () => {} });
const { mcp } = createStateServer({ ...(state && { state }), requestState: { secret: process.env.MINIMCP_SECRET! } });
const { url, close } = await serve(mcp, { port: Number(process.env.PORT ?? 0), host: '127.0.0.1', keepAliveMs: 5_000 });
console.log(`READY ${url}`); // the harness waits for the URL
process.once('SIGTERM', () => void close().then(() => state?.close()).finally(() => process.exit(0)));
