/**
 * Runs tools/call in a child process, so a validation that never ends (it is synchronous, nothing in
 * the process can interrupt it) fails the test at its budget instead of hanging the test run.
 */
import { MiniMCP } from '../../../src/index.js';

// Arguments arrive as JSON text: a value nested 100k deep cannot be copied across, but it can be parsed.
process.on('message', async ({ input, args }: { input: Record<string, unknown>; args: string }) => {
  const mcp = new MiniMCP({ name: 'sec', version: '1', onError: () => {} });
  mcp.tool('t', { input }, () => 'ran');
  const outcome = await mcp.dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: JSON.parse(args) } });
  process.send!(outcome.reply);
});
process.send!('ready');
