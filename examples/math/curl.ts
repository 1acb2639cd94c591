/**
 * The curl lines `npm start` prints and docs/http.md shows (a test keeps the two the same and runs
 * them): one `tools/call` in each protocol era, with every header and `_meta` key it needs.
 */
const JSON_HEADERS = `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`;
const call = (id: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 }, ...extra } });

/** 2025-11-25: `initialize` (its answer carries the session id), `notifications/initialized`, then the call. */
export function legacyCurl(url: string): string[] {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1.0' } },
  });
  const session = `-H 'MCP-Protocol-Version: 2025-11-25' -H "Mcp-Session-Id: $SESSION"`;
  return [
    `SESSION=$(curl -si ${url} ${JSON_HEADERS} -d '${initialize}' | tr -d '\\r' | sed -n 's/^mcp-session-id: //ip')`,
    `curl -s ${url} ${JSON_HEADERS} ${session} -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'`,
    `curl -s ${url} ${JSON_HEADERS} ${session} -d '${call(2)}'`,
  ];
}

/** 2026-07-28: no handshake; the version, the client's capabilities and info ride in `_meta`, method and name in headers too. */
export function modernCurl(url: string): string[] {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1.0' },
  };
  const headers = `-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: add'`;
  return [`curl -s ${url} ${JSON_HEADERS} ${headers} -d '${call(1, { _meta: meta })}'`];
}
