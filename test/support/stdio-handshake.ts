/**
 * A stdio stream must be opened with `initialize` (2025) unless every request carries the 2026 `_meta`.
 * Tests about framing, floods or shutdown open it with this line and leave its reply out of what they count.
 */
export const HANDSHAKE_ID = 'stdio-handshake';

export const handshakeLine = `${JSON.stringify({
  jsonrpc: '2.0',
  id: HANDSHAKE_ID,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
})}\n`;

/** True for the handshake's reply, which a test skips. */
export const isHandshakeReply = (message: unknown): boolean =>
  typeof message === 'object' && message !== null && (message as { id?: unknown }).id === HANDSHAKE_ID;
