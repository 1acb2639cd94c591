/**
 * Per-principal rate limits without a clock of their own: the token bucket's arithmetic, the memory
 * store's bound and eviction, the limiter's verdicts and `limitsFor`, and `route()` refusing in-band
 * when no transport checked first. Every time is passed in; nothing here waits.
 */
import { describe, expect, it } from 'vitest';
import { MiniMCP, MemoryRateStore, RateLimited, RateLimiter, DEFAULT_RATE_LIMITS, type RateLimits, type RateStore } from '../../src/index.js';
import { refill, take, untilFull } from '../../src/state/token-bucket.js';

const LIMITS: RateLimits = { requestsPerSecond: 10, requestBurst: 3, requestBytesPerSecond: 1000, requestBytesBurst: 4000 };

describe('the token bucket', () => {
  it('starts full, takes until empty, then says how long to wait, taking nothing', () => {
    const bucket = refill(undefined, LIMITS, 0);
    expect([take(bucket, LIMITS, 1, 0), take(bucket, LIMITS, 1, 0), take(bucket, LIMITS, 1, 0)]).toEqual([0, 0, 0]);
    expect(take(bucket, LIMITS, 1, 0)).toBe(100); // one request at 10 per second
    expect(bucket.requests).toBe(0);
  });

  it('refills at its rate, never past the burst', () => {
    const bucket = refill(undefined, LIMITS, 0);
    for (let i = 0; i < 3; i++) take(bucket, LIMITS, 1, 0);
    expect(refill(bucket, LIMITS, 150).requests).toBeCloseTo(1.5);
    expect(refill(bucket, LIMITS, 60_000).requests).toBe(3);
    expect(refill(bucket, LIMITS, 60_000).bytes).toBe(4000);
  });

  it('counts bytes in their own bucket, and the slower of the two decides the wait', () => {
    const bucket = refill(undefined, LIMITS, 0);
    expect(take(bucket, LIMITS, 1, 3500)).toBe(0);
    expect(take(bucket, LIMITS, 1, 1000)).toBe(500); // 500 bytes left, 1000 per second
    expect(bucket.requests).toBe(2); // the refused request took nothing
  });

  it('a body larger than the burst costs the burst: it passes when the bucket is full, never otherwise', () => {
    const bucket = refill(undefined, LIMITS, 0);
    expect(take(bucket, LIMITS, 1, 1_000_000)).toBe(0);
    expect(bucket.bytes).toBe(0);
    expect(take(bucket, LIMITS, 1, 1_000_000)).toBe(4000);
  });

  it('force takes without refusing, into a debt at most one burst deep that every later request waits out', () => {
    const bucket = refill(undefined, LIMITS, 0);
    expect(take(bucket, LIMITS, 0, 6000, true)).toBe(0);
    expect(bucket.bytes).toBe(-2000);
    expect(take(bucket, LIMITS, 1, 0)).toBe(2000); // even a request without a body waits for the debt
    expect(take(bucket, LIMITS, 0, 100_000, true)).toBe(0);
    expect(bucket.bytes).toBe(-4000);
    expect(untilFull(bucket, LIMITS)).toBe(8000);
    expect(refill(bucket, LIMITS, 4000).bytes).toBe(0);
  });
});

describe('MemoryRateStore', () => {
  it('keeps one budget per principal', () => {
    const store = new MemoryRateStore();
    for (let i = 0; i < 3; i++) expect(store.take('alice', LIMITS, 1, 0, false, 0)).toBe(0);
    expect(store.take('alice', LIMITS, 1, 0, false, 0)).toBeGreaterThan(0);
    expect(store.take('bob', LIMITS, 1, 0, false, 0)).toBe(0);
    expect(store.take('alice', LIMITS, 1, 0, false, 100)).toBe(0); // refilled one
  });

  it('forgets principals whose buckets refilled as newcomers arrive: idle ones cost nothing', () => {
    const store = new MemoryRateStore();
    store.take('a', LIMITS, 1, 0, false, 0);
    store.take('b', LIMITS, 1, 0, false, 0);
    expect(store.size).toBe(2);
    store.take('c', LIMITS, 1, 0, false, 50); // a and b are not full again yet (100 ms for one request)
    expect(store.size).toBe(3);
    store.take('d', LIMITS, 1, 0, false, 200);
    expect(store.size).toBe(2); // a and b left; c, d stay
  });

  it('never holds more than maxPrincipals: the least recently used goes, and only loses its own debt', () => {
    const store = new MemoryRateStore(2);
    for (let i = 0; i < 3; i++) store.take('alice', LIMITS, 1, 0, false, 0);
    store.take('bob', LIMITS, 1, 0, false, 0);
    store.take('alice', LIMITS, 1, 0, false, 1); // alice is now the most recently used (and refused)
    store.take('carol', LIMITS, 1, 0, false, 2);
    expect(store.size).toBe(2);
    // bob was the least recently used: dropped; alice's empty bucket is still there.
    expect(store.take('alice', LIMITS, 1, 0, false, 3)).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) expect(store.take('bob', LIMITS, 1, 0, false, 3)).toBe(0);
  });

  it('refuses a bad bound at construction', () => {
    expect(() => new MemoryRateStore(0)).toThrow(TypeError);
  });
});

describe('RateLimiter', () => {
  const clocked = (now: { t: number }): RateStore => {
    const store = new MemoryRateStore();
    return { take: (p, l, r, b, f) => store.take(p, l, r, b, f, now.t) };
  };

  it('answers undefined, then a RateLimited naming the option, its limits and when to retry; anonymous is never limited', () => {
    const now = { t: 0 };
    const limiter = new RateLimiter(LIMITS, clocked(now));
    for (let i = 0; i < 3; i++) expect(limiter.check('bob', 10)).toBeUndefined();
    const refusal = limiter.check('bob', 10);
    expect(refusal).toBeInstanceOf(RateLimited);
    expect(refusal).toMatchObject({ bound: 'rateLimit', httpStatus: 429, code: -32603, retryAfterMs: 100, retryAfterSeconds: '1' });
    expect((refusal as RateLimited).message).toBe('Too Many Requests: one client may send 10 requests and 1000 request bytes per second (rateLimit), retry in 1 s');
    for (let i = 0; i < 10; i++) expect(limiter.check('', 1_000_000)).toBeUndefined();
  });

  it('logs a principal reaching its limit once', () => {
    const now = { t: 0 };
    const limiter = new RateLimiter(LIMITS, clocked(now));
    const logged: unknown[] = [];
    limiter.report = (error) => logged.push(error);
    for (let i = 0; i < 10; i++) expect(limiter.check('bob', 0)).not.toBeInstanceOf(Promise);
    expect(logged).toHaveLength(1);
  });

  it('charges undeclared bytes after the fact: the next request waits for them', () => {
    const now = { t: 0 };
    const limiter = new RateLimiter(LIMITS, clocked(now));
    expect(limiter.check('bob', 0)).toBeUndefined();
    limiter.charge('bob', 6000);
    expect((limiter.check('bob', 0) as RateLimited).retryAfterMs).toBe(2000);
    now.t = 2000;
    expect((limiter.check('bob', 500) as RateLimited).retryAfterMs).toBe(500);
    now.t = 2500;
    expect(limiter.check('bob', 500)).toBeUndefined();
  });

  it('limitsFor gives one principal other limits, or none', () => {
    const now = { t: 0 };
    const limiter = new RateLimiter(LIMITS, clocked(now), (p) => (p === 'service' ? false : p === 'gold' ? { requestBurst: 5 } : undefined));
    for (let i = 0; i < 100; i++) expect(limiter.check('service', 1_000_000)).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(limiter.check('gold', 0)).toBeUndefined();
    expect(limiter.check('gold', 0)).toBeInstanceOf(RateLimited);
    expect(() => new RateLimiter(LIMITS, clocked(now), () => ({ requestBurst: -1 })).check('x', 0)).toThrow(/requestBurst/);
  });

  it('lets requests through when the store fails, and reports it', async () => {
    const failures: unknown[] = [];
    const limiter = new RateLimiter(LIMITS, { take: () => Promise.reject(new Error('store down')) });
    limiter.report = (error) => failures.push(error);
    expect(await limiter.check('bob', 0)).toBeUndefined();
    expect(failures).toHaveLength(1);
  });
});

describe('the rateLimit option and route()', () => {
  it('is on by default with the documented limits; false turns it off; bad values are refused', () => {
    expect(new MiniMCP({ name: 's', version: '1' }).rates?.limits).toEqual(DEFAULT_RATE_LIMITS);
    expect(DEFAULT_RATE_LIMITS).toEqual({ requestsPerSecond: 200, requestBurst: 400, requestBytesPerSecond: 1_048_576, requestBytesBurst: 8_388_608 });
    expect(new MiniMCP({ name: 's', version: '1', rateLimit: false }).rates).toBeUndefined();
    expect(() => new MiniMCP({ name: 's', version: '1', rateLimit: { requestsPerSecond: 0 } })).toThrow(/requestsPerSecond/);
  });

  it('route() takes what no transport checked: past the limit a request gets -32603 in-band, with 429 as its status', async () => {
    const mcp = new MiniMCP({ name: 's', version: '1', rateLimit: { requestsPerSecond: 1, requestBurst: 2 }, onError: () => {} });
    const ping = (id: number) => mcp.dispatch({ jsonrpc: '2.0', id, method: 'ping' }, { principal: 'bob' });
    const outcomes = [await ping(1), await ping(2), await ping(3)];
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 429]);
    expect(outcomes[2]!.reply).toMatchObject({ id: 3, error: { code: -32603, message: expect.stringMatching(/^Too Many Requests: .*\(rateLimit\), retry in 1 s$/) } });
    // The transport said it checked already (HTTP does before the body): not taken twice.
    expect((await mcp.dispatch({ jsonrpc: '2.0', id: 4, method: 'ping' }, { principal: 'bob', rateChecked: true })).status).toBe(200);
    // Anonymous (no principal): not limited.
    for (let i = 0; i < 5; i++) expect((await mcp.dispatch({ jsonrpc: '2.0', id: 10 + i, method: 'ping' })).status).toBe(200);
  });
});
