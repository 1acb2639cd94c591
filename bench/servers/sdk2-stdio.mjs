/** Official SDK v2 over stdio: `serveStdio(factory)` (one server per connection). */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createSdk2Server } from './sdk2-tools.mjs';

serveStdio(createSdk2Server);
