/** Official SDK v1 over stdio: one McpServer with StdioServerTransport. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSdk1Server } from './sdk1-tools.mjs';

await createSdk1Server().connect(new StdioServerTransport());
