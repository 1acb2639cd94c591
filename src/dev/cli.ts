/**
 * The `minimcp` command (package `bin`):
 *   minimcp dev <server file> [--port N] [--host H] [--scope S] [--watch DIR]...   the server with a playground, restarted on save
 *   minimcp init [dir]                                  a starter project
 *   minimcp proxy …                                     any MCP server behind MiniMCP (src/dev/proxy-command.ts)
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startDev } from './supervisor.js';
import { createStarter } from './init.js';
import { starterDependency } from './starter-dependency.js';

const USAGE = `Usage:
  minimcp dev <server file> [--port N] [--host H] [--scope <JSON or module>] [--watch <dir>]...
      Runs your server module (TypeScript too, through tsx) with a playground at http://127.0.0.1:N/,
      restarting it when a file under its folder, or under a --watch folder (a skills/ folder beside
      src/), changes. The module either exports the server
      (\`export default mcp\`, a MiniMCP or a function returning one) or calls serve(mcp) itself.
      Port: --port, else $PORT, else 3000. --scope gives every request a scope (ctx.scope): JSON such as
      '{"user":"ada"}', or a module whose default export is the scope or a function of the request.
  minimcp init [dir]
      Writes a starter project (one tool, one test, npm run dev) into dir (default: the current folder).
  minimcp proxy --help
      Serves any MCP server (a stdio command or a remote URL) as a remote MiniMCP server.`;

/** Every value of an option that may repeat (`--watch a --watch b`), removed from args. */
function options(args: string[], name: string): string[] {
  const values: string[] = [];
  for (let value = option(args, name); value !== undefined; value = option(args, name)) values.push(value);
  return values;
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  args.splice(at, 2);
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if ((command === 'dev' || command === 'init') && args.some((arg) => arg === '--help' || arg === '-h')) {
    console.log(USAGE);
    return;
  }
  if (command === 'dev') {
    const portText = option(args, '--port') ?? process.env.PORT;
    const host = option(args, '--host');
    const scope = option(args, '--scope');
    const watch = options(args, '--watch');
    const port = portText === undefined ? undefined : Number(portText);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new Error(`Not a port: ${portText}`);
    if (args.length !== 1) throw new Error(USAGE);
    const dev = await startDev({ file: args[0]!, ...(port !== undefined && { port }), ...(host !== undefined && { host }), ...(scope !== undefined && { scope }), watch });
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void dev.close().then(() => process.exit(0)));
    return;
  }
  if (command === 'proxy') {
    const { PROXY_USAGE, runProxy } = await import('./proxy-command.js');
    if (args.some((arg) => arg === '--help' || arg === '-h')) return void console.log(PROXY_USAGE);
    const gateway = await runProxy(args);
    console.log(`MiniMCP gateway listening on ${gateway.url}`);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void gateway.close().then(() => process.exit(0)));
    return;
  }
  if (command === 'init') {
    if (args.length > 1) throw new Error(USAGE);
    // The starter depends on this very package (package.json sits two folders up from src/dev and dist/dev).
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const written = createStarter(args[0] ?? '.', starterDependency(fileURLToPath(new URL('../..', import.meta.url)), version));
    console.log(written);
    return;
  }
  console.log(USAGE);
  if (command !== undefined && command !== 'help' && command !== '--help' && command !== '-h') process.exitCode = 1;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
