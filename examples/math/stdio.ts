/** The math example over stdio: `npm run -s start:stdio`. */
import { serveStdio } from '../../src/transports/stdio.js';
import { createMathServer } from './server.js';

serveStdio(createMathServer());
