/**
 * An upstream built on the official SDK v2 (`createMcpHandler`, both eras on one endpoint) for the
 * gateway tests: a tool that waits until it is cancelled and counts cancellations, progress, questions
 * asked the 2026 way (`inputRequired`, MRTR), a resource, a template and a prompt. Prints its URL.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, inputResponse, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';

let cancelled = 0;

function build() {
  const server = new McpServer({ name: 'sdk2-upstream', version: '1.0.0' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
  server.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('wait', { description: 'Waits until cancelled' }, async (ctx) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 20_000);
      ctx.mcpReq.signal.addEventListener('abort', () => {
        cancelled++;
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  server.registerTool('cancelled', { description: 'How many waits were cancelled' }, async () => ({ content: [{ type: 'text', text: String(cancelled) }] }));
  server.registerTool('steps', { description: 'Reports progress' }, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= 3; i++) if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
    return { content: [{ type: 'text', text: 'stepped' }] };
  });
  server.registerTool('ask', { description: 'Asks a name, then a model' }, async (ctx) => {
    const name = inputResponse(ctx.mcpReq.inputResponses, 'name');
    const model = inputResponse(ctx.mcpReq.inputResponses, 'model');
    if (name.kind === 'missing' || model.kind === 'missing') {
      return inputRequired({ inputRequests: {
        name: inputRequired.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
        model: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: '6 x 7?' } }], maxTokens: 5 }),
      } });
    }
    const answers = ctx.mcpReq.inputResponses;
    return { content: [{ type: 'text', text: `hello ${answers.name.content.name}, the model said ${answers.model.content.text}` }] };
  });
  server.registerResource('readme', 'docs://readme', { mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'read me' }] }));
  server.registerResource('page', new ResourceTemplate('docs://pages/{id}', { list: undefined }), { mimeType: 'text/plain' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: `page ${id}` }],
  }));
  server.registerPrompt('greet', { description: 'Greets', argsSchema: z.object({ who: z.string() }) }, async ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Greet ${who}` } }],
  }));
  return server;
}

const handle = toNodeHandler(createMcpHandler(build));
const http = createServer((req, res) => {
  if (req.url !== '/mcp') return res.writeHead(404).end();
  void handle(req, res);
});
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
