/** Any runtime with process.stdin/stdout (Node, Bun, Deno): the conformance fixture over stdio. */
import { serveStdio } from 'minimcp/stdio';
import { createConformanceFixture } from '../../../examples/conformance/fixture.js';

serveStdio(createConformanceFixture());
