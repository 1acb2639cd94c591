/** A stdio server whose tool asks the client: 2025 sends elicitation/create on the stream, 2026 answers input_required. */
import { MiniMCP } from '../../../src/index.js';
import { serveStdio } from '../../../src/transports/stdio.js';

const mcp = new MiniMCP({ name: 'ask-stdio', version: '1.0.0' });
mcp.tool('ask', { description: 'Asks the user for a name, then greets them' }, async (_args, ctx) => {
  const answer = await ctx.elicit(
    { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    { key: 'name' },
  );
  return answer.action === 'accept' ? `hello ${String(answer.content?.name)} (${ctx.era})` : `no name (${answer.action})`;
});
serveStdio(mcp);
