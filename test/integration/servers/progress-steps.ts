/**
 * A server whose `steps` tool reports progress `n` times and returns in the same tick as its last
 * `ctx.progress()` (issue 26 item 5). Run as a stdio child (`node --import tsx progress-steps.ts`), or
 * imported for HTTP.
 */
import { MiniMCP } from '../../../src/index.js';
import { serveStdio } from '../../../src/transports/stdio.js';

export function createStepsServer(): MiniMCP {
  const mcp = new MiniMCP({ name: 'steps', version: '1.0.0', onError: () => {} });
  mcp.tool('steps', { input: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, async ({ n }, ctx) => {
    for (let i = 1; i <= n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      ctx.progress(i, n, `step ${i}`);
    }
    return `${n} steps`;
  });
  return mcp;
}

if (process.argv[1]?.endsWith('progress-steps.ts')) serveStdio(createStepsServer());
