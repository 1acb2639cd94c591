/** tmcp over stdio with @tmcp/transport-stdio. */
import { StdioTransport } from '@tmcp/transport-stdio';
import { createTmcpServer } from './tmcp-tools.mjs';

new StdioTransport(createTmcpServer()).listen();
