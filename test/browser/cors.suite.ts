/**
 * CORS from a real page on another origin: Chromium maps app.test to 127.0.0.1, so the page's origin
 * (http://app.test:PORT) is one the DNS-rebinding guard would refuse unless `cors.origins` lists it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { serve, type RunningServer } from '../../src/transports/http/node.js';
import { hasChromium, launch } from './support.js';

const PAGE = '<!doctype html><title>app</title><p>another origin</p>';

/** Runs in the page: initialize (reading the session header), then call a tool with it. */
async function callFromPage(endpoint: string): Promise<unknown> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  try {
    const init = await fetch(endpoint, {
      method: 'POST', headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id');
    const call = await fetch(endpoint, {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session ?? '', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shout', arguments: { text: 'hi' } } }),
    });
    return { session, status: call.status, body: await call.json() };
  } catch (error) {
    return { failed: String(error) };
  }
}

describe.skipIf(!hasChromium)('CORS in Chromium', () => {
  let pageServer: Server;
  let pageOrigin: string;
  const running: RunningServer[] = [];
  let browser: Awaited<ReturnType<typeof launch>>;

  function mcpServer() {
    const mcp = new MiniMCP({ name: 'cors-browser', version: '1' });
    mcp.tool('shout', { input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, (args) => String(args.text).toUpperCase());
    return mcp;
  }

  beforeAll(async () => {
    pageServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://app.test:${(pageServer.address() as AddressInfo).port}`;
    browser = await launch(['--host-resolver-rules=MAP app.test 127.0.0.1']);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(running.map((r) => r.close()));
    pageServer?.close();
  });

  it('a page on a listed origin calls a tool with fetch and reads Mcp-Session-Id', async () => {
    const server = await serve(mcpServer(), { cors: { origins: [pageOrigin] } });
    running.push(server);
    const page = await browser.browser.newPage();
    await page.goto(`${pageOrigin}/`);
    const outcome = (await page.evaluate(callFromPage, server.url)) as { session: string; status: number; body: any };
    expect(outcome.session).toEqual(expect.any(String));
    expect(outcome.status).toBe(200);
    expect(outcome.body.result.content).toEqual([{ type: 'text', text: 'HI' }]);
    await page.close();
  });

  it('without cors the same page is blocked', async () => {
    const server = await serve(mcpServer());
    running.push(server);
    const page = await browser.browser.newPage();
    await page.goto(`${pageOrigin}/`);
    const outcome = (await page.evaluate(callFromPage, server.url)) as { failed?: string };
    expect(outcome.failed).toMatch(/Failed to fetch/);
    await page.close();
  });
});
