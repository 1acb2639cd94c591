/**
 * The child process of `minimcp dev`: loads the user's server module (TypeScript through tsx, which
 * the parent put on the command line), serves it on a private loopback port and tells the parent
 * over IPC. Restarting means a new child: a fresh module graph with nothing cached.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { MiniMCP } from '../server.js';
import { createNodeHandler, type RunningServer, type ServeOptions } from '../transports/http/node.js';
import { describeLoadError, type LoadError } from './code-frame.js';
import { installServeOverride } from '../transports/http/serve-override.js';
import { loadDevScope, type DevScope } from './dev-scope.js';

/**
 * Warms the spare: the user's module imports the same MiniMCP modules, so they load now, while the
 * spare waits. A dynamic import awaited before the user's module: a bare `import '../index.js'` was
 * dropped by the bundler (the package says `sideEffects: false`), and the spare built from dist/ then
 * loaded only the modules it uses itself.
 */
const warmUp: Promise<unknown> = import('../index.js');

export type ChildMessage = { type: 'ready'; port: number; path: string } | { type: 'error'; error: LoadError };

const report = (message: ChildMessage): void => void process.send?.(message);
let served = false;
/** `minimcp dev --scope`: given to the server in place of its own scope option. */
let devScope: { scope: (request: IncomingMessage) => unknown } | undefined;

const isMiniMCP = (value: unknown): value is MiniMCP<unknown> =>
  typeof (value as MiniMCP | null)?.dispatch === 'function' && typeof (value as MiniMCP | null)?.tool === 'function';

/** Serves on 127.0.0.1 at a free port; the parent's own address is what users see. */
async function serveForDev<Scope>(mcp: MiniMCP<Scope>, options: ServeOptions<Scope> = {}): Promise<RunningServer> {
  const { port: _port, host: _host, path = '/mcp', ...ownOptions } = options;
  const handlerOptions = devScope === undefined ? ownOptions : { ...ownOptions, scope: devScope.scope };
  // The card names the address users reach (the dev server's /mcp), not this child's private port and path.
  const devUrl = process.env.MINIMCP_DEV_URL;
  if (handlerOptions.card !== undefined && handlerOptions.card.url === undefined && devUrl !== undefined) {
    handlerOptions.card = { ...handlerOptions.card, url: devUrl };
  }
  const handler = createNodeHandler(mcp as MiniMCP<unknown>, handlerOptions); // serve()'s public signature checked the scope
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  if (!served) {
    served = true;
    report({ type: 'ready', port, path });
  }
  return {
    url: process.env.MINIMCP_DEV_URL ?? `http://127.0.0.1:${port}${path}`,
    server,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function main(file: string, scope: DevScope | undefined): Promise<void> {
  if (scope !== undefined) devScope = { scope: await loadDevScope(scope) };
  // A module that calls serve() itself (minimcp/node) is served through this hook instead.
  installServeOverride<MiniMCP<unknown>, ServeOptions<unknown>, RunningServer>({ serve: serveForDev });
  await warmUp;
  const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  if (served) return;
  let exported = mod.default;
  if (typeof exported === 'function' && !isMiniMCP(exported)) exported = await (exported as () => unknown)();
  if (isMiniMCP(exported)) {
    await serveForDev(exported);
    return;
  }
  // serve() may still be on its way (called after an await at the top level); give it a moment.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (!served) {
    throw new Error(
      `${file} did not give minimcp dev a server. Export one: \`export default mcp\` (a MiniMCP, or a function ` +
        'returning one), or call serve(mcp) from minimcp/node in the module.',
    );
  }
}

function load(file: string, scope?: DevScope): void {
  main(file, scope).catch((error: unknown) => {
    report({ type: 'error', error: describeLoadError(error) });
    // Let the message reach the parent before exiting.
    setTimeout(() => process.exit(1), 50);
  });
}

// Never outlive the supervisor, however it ended.
process.once('disconnect', () => process.exit(0));

// Started with a file, or as the warm spare: node, tsx and MiniMCP already loaded, waiting for a
// file to load (a restart then only pays for the user's own modules).
if (process.argv[2] !== undefined) load(process.argv[2]);
else process.once('message', (message: { type: 'load'; file: string; scope?: DevScope }) => load(message.file, message.scope));
