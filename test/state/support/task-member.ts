/**
 * One cluster member for the task tests: the task server on Redis (TASKS_STORE=memory keeps tasks in
 * this process instead, to show what the tests need of the shared store); the principal is the
 * x-user header; TASKS_HEARTBEAT_MS and TASKS_MAX set the heartbeat and the per-principal cap. Prints `READY <url>`.
 */
import { MemoryTaskStore } from '../../../src/index.js';
import { redisState } from '../../../src/redis/index.js';
import { serve } from '../../../src/transports/http/node.js';
import { createTaskServer } from './task-server.js';

const state = await redisState({ url: process.env.REDIS_URL!, prefix: process.env.MINIMCP_REDIS_PREFIX, onError: () => {} });
const mcp = createTaskServer({
  state,
  requestState: { secret: process.env.MINIMCP_SECRET! },
  tasks: {
    pollIntervalMs: 50,
    heartbeatMs: Number(process.env.TASKS_HEARTBEAT_MS ?? 10_000),
    maxPerPrincipal: Number(process.env.TASKS_MAX ?? 100),
    ...(process.env.TASKS_STORE === 'memory' ? { store: new MemoryTaskStore() } : {}),
  },
});
const { url, close } = await serve(mcp, {
  port: 0,
  host: '127.0.0.1',
  keepAliveMs: 5_000,
  scope: (request) => ({ principal: String(request.headers['x-user'] ?? '') }),
});
console.log(`READY ${url}`);
process.once('SIGTERM', () => void close().then(() => state.close()).finally(() => process.exit(0)));
