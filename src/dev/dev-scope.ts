/**
 * `minimcp dev --scope <JSON or module>`: the scope the dev server gives every request, for a server
 * declared `new MiniMCP<Scope>` whose handlers read `ctx.scope` (without it they met `undefined`).
 * JSON is the scope itself; a module's default export is the scope, or a function of the request
 * (a scope factory, as serve() takes one).
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export type DevScope = { readonly kind: 'json'; readonly json: string } | { readonly kind: 'module'; readonly path: string };

/** Reads the option's text: JSON when it looks like JSON, else a module path (checked to exist). */
export function parseDevScope(text: string, cwd = process.cwd()): DevScope {
  if (/^\s*[[{"\d-]|^\s*(true|false|null)\s*$/.test(text)) {
    try {
      JSON.parse(text);
    } catch (error) {
      throw new Error(`minimcp dev --scope: not valid JSON (${(error as Error).message}): ${text}`);
    }
    return { kind: 'json', json: text };
  }
  const path = resolve(cwd, text);
  if (!existsSync(path)) throw new Error(`minimcp dev --scope: no such file ${path} (give JSON, or a module whose default export is the scope)`);
  return { kind: 'module', path };
}

/** How the playground and the terminal show it. */
export const describeDevScope = (scope: DevScope): string => (scope.kind === 'json' ? scope.json.trim() : `default export of ${scope.path}`);

/** In the child: the scope factory the server's handler gets (a plain value is given to every request). */
export async function loadDevScope(scope: DevScope): Promise<(request: IncomingMessage) => unknown> {
  if (scope.kind === 'json') {
    const value: unknown = JSON.parse(scope.json);
    return () => value;
  }
  const mod = (await import(pathToFileURL(scope.path).href)) as { default?: unknown };
  const given = mod.default;
  if (given === undefined) throw new Error(`minimcp dev --scope: ${scope.path} has no default export (the scope, or a function returning it)`);
  return typeof given === 'function' ? (given as (request: IncomingMessage) => unknown) : () => given;
}
