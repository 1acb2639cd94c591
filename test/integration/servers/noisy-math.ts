/**
 * The math server plus a tool that writes to stdout the wrong way (console.log, process.stdout.write):
 * serveStdio must keep stdout for JSON-RPC and move that output to stderr.
 */
import { createMathServer } from '../../../examples/math/server.js';
import { serveStdio } from '../../../src/transports/stdio.js';

const mcp = createMathServer();
mcp.tool('noisy', { description: 'Writes plain text to stdout' }, () => {
  console.log('console.log noise from a tool');
  process.stdout.write('process.stdout.write noise from a tool\n');
  console.info('console.info noise from a tool');
  return 'done';
});
serveStdio(mcp);
console.log('console.log noise after serveStdio');
