/** The plain-JS SHA-256 / HMAC used where node:crypto is missing (Workers without flags) agrees with node:crypto. */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { portableHashing } from '../../src/platform/crypto.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('portable hashing', () => {
  it('SHA-256 matches node:crypto for lengths 0..300 (every padding case) and the FIPS "abc" vector', () => {
    expect(hex(portableHashing.sha256('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (let n = 0; n <= 300; n++) {
      const text = randomBytes(n).toString('latin1');
      expect(hex(portableHashing.sha256(text))).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('HMAC-SHA256 matches node:crypto for keys shorter, equal to and longer than the block, bytes or text', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
      const key = randomBytes(keyLength);
      const text = `state ${keyLength} ✓ ${randomBytes(40).toString('base64')}`;
      expect(hex(portableHashing.hmacSha256(key, text))).toBe(createHmac('sha256', key).update(text).digest('hex'));
      expect(hex(portableHashing.hmacSha256('secret ✓', text))).toBe(createHmac('sha256', 'secret ✓').update(text).digest('hex'));
    }
  });
});
