/**
 * The servers under test. Each HTTP target is one server process answering POST /mcp on PORT; each
 * stdio target is one process the stdio driver pipes to. `file` is relative to bench/ (MiniMCP runs
 * compiled, from the build dir). `pkgs` name the packages whose versions the report records.
 */
const built = (name) => `results/tmp/build/bench/servers/${name}`;

/** The headers every benchmark request carries. */
export const HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-11-25',
};

export const HTTP_TARGETS = [
  { name: 'floor-http', file: 'servers/floor-http.mjs', role: 'floor', pkgs: [] },
  // The SSE floor: the same request as minimcp-sse (a progressToken, the `_sse` tool) answered as a bare
  // event stream (the progress, then the result). Runs where minimcp-sse runs, and is its "× floor".
  { name: 'floor-sse', file: 'servers/floor-sse.mjs', role: 'floor', floorFor: 'minimcp-sse', toolSuffix: '_sse', progress: true, noColdStart: true, pkgs: [] },
  { name: 'minimcp-json', file: built('minimcp-http.js'), env: { MODE: 'json' }, role: 'minimcp', pkgs: ['minimcp'] },
  { name: 'minimcp-streamable', file: built('minimcp-http.js'), env: { MODE: 'streamable' }, role: 'minimcp', pkgs: ['minimcp'] },
  // The same server as minimcp-streamable, on the SSE path: a progressToken in the request and tools
  // that report progress once before returning. Same process as above, so no cold start of its own.
  { name: 'minimcp-sse', file: built('minimcp-http.js'), env: { MODE: 'streamable' }, role: 'minimcp', floor: 'floor-sse', toolSuffix: '_sse', progress: true, noColdStart: true, pkgs: ['minimcp'] },
  // minimcp-json with telemetry on (minimcp/otel on the OpenTelemetry SDK, spans batched to an exporter
  // that drops them): the cost of tracing next to minimcp-json, where it is off.
  { name: 'minimcp-json-otel', file: built('minimcp-http.js'), env: { MODE: 'json', TELEMETRY: 'otel' }, role: 'minimcp', noColdStart: true, pkgs: ['minimcp', '@opentelemetry/sdk-trace-base'] },
  { name: 'sdk-v1', file: 'servers/sdk1-http.mjs', role: 'peer', pkgs: ['@modelcontextprotocol/sdk'] },
  { name: 'sdk-v2', file: 'servers/sdk2-http.mjs', role: 'peer', pkgs: ['@modelcontextprotocol/server', '@modelcontextprotocol/node'] },
  // mcp-lite 0.10 refuses MCP-Protocol-Version 2025-11-25 (it knows 2025-03-26 and 2025-06-18).
  { name: 'mcp-lite', file: 'servers/mcplite-http.mjs', role: 'peer', headers: { 'MCP-Protocol-Version': '2025-06-18' }, pkgs: ['mcp-lite', '@hono/node-server'] },
  { name: 'tmcp', file: 'servers/tmcp-http.mjs', role: 'peer', pkgs: ['tmcp', '@tmcp/transport-http', '@hono/node-server'] },
];

export const STDIO_TARGETS = [
  { name: 'floor-stdio', file: 'servers/floor-stdio.mjs', role: 'floor', pkgs: [] },
  { name: 'minimcp-stdio', file: built('minimcp-stdio.js'), role: 'minimcp', init: true, pkgs: ['minimcp'] },
  { name: 'sdk-v1-stdio', file: 'servers/sdk1-stdio.mjs', role: 'peer', pkgs: ['@modelcontextprotocol/sdk'] },
  { name: 'sdk-v2-stdio', file: 'servers/sdk2-stdio.mjs', role: 'peer', pkgs: ['@modelcontextprotocol/server'] },
  { name: 'tmcp-stdio', file: 'servers/tmcp-stdio.mjs', role: 'peer', pkgs: ['tmcp', '@tmcp/transport-stdio'] },
];

export const WORKLOADS = ['noop', 'compute', 'io'];
