/** MiniMCP over stdio (newline-delimited JSON-RPC). */
import { serveStdio } from 'minimcp/stdio';
import { createBenchServer } from './minimcp-tools.js';

serveStdio(createBenchServer());
