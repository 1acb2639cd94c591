/** MiniMCP over stdio (newline-delimited JSON-RPC). */
import { serveStdio } from '../../src/transports/stdio.js';
import { createBenchServer } from './minimcp-tools.js';

serveStdio(createBenchServer());
