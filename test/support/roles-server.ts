/** examples/roles on a free port for one test file: started before its tests, closed after. */
import { afterAll, beforeAll } from 'vitest';
import { createRolesMcp, startRolesServer } from '../../examples/roles/server.js';
import type { RunningServer } from '../../src/transports/http/node.js';

export function rolesServer() {
  const mcp = createRolesMcp();
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startRolesServer(0, mcp);
  });
  afterAll(async () => {
    await server?.close();
  });
  return { mcp, url: (): string => server!.url };
}
