/** Where a framework adapter routes the discovery documents, for an MCP endpoint at `path`. */
import type { ServerCardOptions } from './options.js';

export function discoveryPaths(path: string, card: ServerCardOptions | undefined): string[] {
  if (card === undefined) return [];
  const paths = [`${path.replace(/\/+$/, '')}/server-card`];
  if (card.mcpCatalog !== false) paths.push('/.well-known/mcp/catalog.json');
  if (card.aiCatalog !== false) paths.push('/.well-known/ai-catalog.json');
  if (card.wellKnownAlias === true) paths.push('/.well-known/mcp/server-card.json');
  return paths;
}
