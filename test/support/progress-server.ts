/** A server whose tools report progress once, so a 2025 call that asks for progress is answered over SSE. */
import { MiniMCP, type MiniMCPOptions } from '../../src/index.js';

/**
 * `quick` reports progress and returns a few microtasks later (no I/O: still in its first turn);
 * `slow` reports progress and returns 'done' only once `release()` is called (the client has read it).
 */
export function progressServer(options: Partial<MiniMCPOptions> = {}) {
  const mcp = new MiniMCP({ name: 's', version: '1', ...options });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  mcp.tool('quick', {}, async (_args, ctx) => {
    ctx.progress(1);
    return await Promise.resolve('ok');
  });
  mcp.tool('slow', {}, async (_args, ctx) => {
    ctx.progress(1);
    await released;
    return 'done';
  });
  return { mcp, release };
}

/** A 2025 `tools/call` of `tool` with a progressToken: its answer is an SSE stream once the tool reports progress. */
export const progressCall = (tool: string, url = 'http://127.0.0.1/mcp'): Request =>
  new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {}, _meta: { progressToken: 7 } } }),
  });
