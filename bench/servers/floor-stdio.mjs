/** The stdio floor: split lines, JSON.parse, the tool's work, write a canned reply. No MCP at all. */
import { WORK, result } from './work.mjs';

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) if (line) void answer(line);
});
process.stdin.on('end', () => process.exit(0));

async function answer(line) {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return; // a notification
  const work = WORK[msg.params?.name];
  const reply = work
    ? { jsonrpc: '2.0', id: msg.id, result: result(await work()) }
    : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Not found' } };
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
