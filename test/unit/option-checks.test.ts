/**
 * Issue 23 item 3: one check for every numeric option (server, HTTP handler, serve()). A value a timer
 * cannot hold (over 2^31 - 1 ms) would silently fire at once; each owner now refuses it by name.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP } from '../../src/index.js';
import { createFetchHandler } from '../../src/transports/http/index.js';
import { serve } from '../../src/transports/http/node.js';
import { intOption } from '../../src/option-checks.js';

const mcp = () => new MiniMCP({ name: 'options', version: '1' });

describe('numeric options', () => {
  it('takes the fallback when unset and the value when it is an integer in range', () => {
    expect(intOption({}, 'x', 7)).toBe(7);
    expect(intOption({ x: 3 }, 'x', 7)).toBe(3);
    expect(intOption({ x: 10 }, 'x', 7, { max: 10 })).toBe(10);
  });

  it('refuses zero, fractions, strings and values past the maximum, naming the owner and the option', () => {
    for (const x of [0, -1, 1.5, '5', Number.NaN, 11]) {
      expect(() => intOption({ x }, 'x', 7, { max: 10, owner: 'HTTP option' })).toThrow(/^HTTP option x must be a positive integer \(at most 10\)/);
    }
  });

  it('the server, the HTTP handler and serve() refuse a timer longer than 2^31 - 1 ms', async () => {
    expect(() => new MiniMCP({ name: 'options', version: '1', idleTimeoutMs: 2 ** 31 })).toThrow(/MiniMCP option idleTimeoutMs/);
    expect(() => createFetchHandler(mcp(), { keepAliveMs: 2 ** 31 })).toThrow(/HTTP option keepAliveMs/);
    await expect(serve(mcp(), { requestTimeoutMs: 2 ** 31 })).rejects.toThrow(/serve\(\) option requestTimeoutMs/);
  });
});

describe('count limits (session and proof limits)', () => {
  it('take each default unless given, and refuse a bad one by name', async () => {
    const { sessionLimits, DEFAULT_SESSION_LIMITS } = await import('../../src/state/session-limits.js');
    const { proofLimits } = await import('../../src/state/proofs.js');
    expect(sessionLimits({ maxSessions: 5 })).toEqual({ ...DEFAULT_SESSION_LIMITS, maxSessions: 5 });
    expect(sessionLimits({ maxSessions: undefined })).toEqual(DEFAULT_SESSION_LIMITS);
    expect(() => sessionLimits({ maxSubscriptions: 0 })).toThrow(/^Session limit maxSubscriptions must be a positive integer/);
    expect(() => proofLimits({ maxTotalProofs: 1.5 })).toThrow(/^Proof limit maxTotalProofs must be a positive integer/);
  });
});
