import { describe, expect, it } from 'vitest';
import { BoundsLedger } from '../../src/state/ledger.js';
import { PrincipalQuota } from '../../src/limits/principal-quota.js';
import { EventStore } from '../../src/state/replay.js';

describe('the bounds ledger', () => {
  it('counts things and their size per named principal and in all; anonymous only in all', () => {
    const ledger = new BoundsLedger();
    ledger.add('alice', 1, 10);
    ledger.add('alice', 1, 5);
    ledger.add('', 1, 7);
    ledger.add('bob', 1, 0);
    expect(ledger.of('alice')).toEqual({ count: 2, size: 15 });
    expect(ledger.of('')).toEqual({ count: 0, size: 0 });
    expect(ledger.total).toEqual({ count: 4, size: 22 });
    ledger.add('alice', -2, -15);
    ledger.add('bob', -1, 0);
    expect(ledger.principals).toBe(0); // a principal at zero is forgotten: the ledger keeps no empty rows
    expect(ledger.total).toEqual({ count: 1, size: 7 });
  });

  it('made with anonymousIsOne, counts anonymous as one principal (the task store\'s rule)', () => {
    const ledger = new BoundsLedger(true);
    ledger.add('', 2, 30);
    expect(ledger.of('')).toEqual({ count: 2, size: 30 });
    ledger.add('', -2, -30);
    expect(ledger.principals).toBe(0);
  });

  it('is what the stream quota and the replay store count with: places and streams given back leave no rows', () => {
    const quota = new PrincipalQuota(4, 2);
    const releases = [quota.hold('alice'), quota.hold('alice'), quota.hold('')];
    expect(quota.hold('alice')).toMatchObject({ bound: 'maxStreamsPerPrincipal' });
    releases.push(quota.hold('bob'));
    expect(quota.open).toBe(4);
    expect(quota.hold('carol')).toMatchObject({ bound: 'maxStreams' });
    for (const release of releases) if (typeof release === 'function') release();
    expect(quota.open).toBe(0);

    const store = new EventStore({ maxStreamsPerPrincipal: 2, maxCharsPerPrincipal: 100 });
    const a = store.open('a', 'o', 1, 'alice');
    a.push('x'.repeat(60));
    const b = store.open('b', 'o', 1, 'alice');
    b.push('y'.repeat(60)); // past alice's 100 characters: her oldest stream goes
    expect(store.size).toBe(1);
    expect(store.chars).toBe(60);
    store.open('c', 'o', 1, 'alice');
    store.open('d', 'o', 1, 'alice'); // past her 2 streams: b goes
    expect(store.size).toBe(2);
    expect(store.chars).toBe(0);
  });
});
