/**
 * A cluster member for the cluster and fan-out scenarios: the bench tools on MiniMCP with its state on
 * Redis (REDIS_URL, MINIMCP_REDIS_PREFIX, MINIMCP_SECRET), Streamable HTTP on 127.0.0.1:$PORT/mcp
 * (0: any port). Adds a resource and a tool that raises `notifyResourceUpdated()` on it, for the
 * fan-out. Without REDIS_URL it is one process on the memory state (the fan-out's reference row).
 * Prints `READY <url>`.
 */
import { serve } from 'minimcp/node';
import { redisState } from 'minimcp/redis';
import { createBenchServer } from './minimcp-tools.js';

export const FANOUT_URI = 'bench://fanout';

const state = process.env.REDIS_URL ? await redisState({ url: process.env.REDIS_URL, prefix: process.env.MINIMCP_REDIS_PREFIX }) : undefined;
const mcp = createBenchServer(state ? { state, requestState: { secret: String(process.env.MINIMCP_SECRET) } } : {});
mcp.resource(FANOUT_URI, { name: 'fanout' }, () => 'fanout');
mcp.tool('fanout_touch', {}, () => {
  mcp.notifyResourceUpdated(FANOUT_URI);
  return 'ok';
});
const { url, close } = await serve(mcp, { port: Number(process.env.PORT ?? 0), host: '127.0.0.1', path: '/mcp' });
console.log(`READY ${url}`);
process.once('SIGTERM', () => void close().then(() => state?.close()).finally(() => process.exit(0)));
