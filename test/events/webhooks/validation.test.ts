/**
 * Issue 34 item 5, the refusals that need no network: the client's secret, the callback URL's scheme
 * and credentials, and every class of address that is not globally routable, in each spelling
 * (IPv4 literal, IPv6, IPv4 carried in IPv6). Host names are refused at send time (egress.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { validateCallbackUrl, validateSecret, WebhookParamsError } from '../../../src/events/webhooks/index.js';
import { isGlobalAddress } from '../../../src/events/webhooks/address.js';

const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('validateSecret', () => {
  it('accepts whsec_ with 24 to 64 bytes', () => {
    for (const n of [24, 32, 64]) expect(() => validateSecret(`whsec_${b64(n)}`)).not.toThrow();
  });
  it.each([
    ['too short (23 bytes)', `whsec_${b64(23)}`],
    ['too long (65 bytes)', `whsec_${b64(65)}`],
    ['no whsec_ prefix', b64(32)],
    ['another prefix', `wsec_${b64(32)}`],
    ['not base64', `whsec_${'!'.repeat(44)}`],
    ['base64url, not standard', `whsec_${Buffer.alloc(32, 251).toString('base64url')}`],
    ['empty', 'whsec_'],
    ['not a string', 42],
    ['huge', `whsec_${b64(10_000)}`],
  ])('refuses a secret that is %s', (_why, value) => {
    expect(() => validateSecret(value)).toThrow(WebhookParamsError);
    try {
      validateSecret(value);
    } catch (error) {
      expect((error as WebhookParamsError).field).toBe('delivery.secret');
    }
  });
});

describe('validateCallbackUrl', () => {
  it('keeps an https URL exactly, query string included', () => {
    const url = 'https://hooks.example.com/mcp/events?key=abc%2Fdef&x=1';
    expect(validateCallbackUrl(url).href).toBe(url);
  });
  it.each([
    ['http', 'http://hooks.example.com/x'],
    ['ftp', 'ftp://hooks.example.com/x'],
    ['relative', '/hooks'],
    ['credentials', 'https://user:pw@hooks.example.com/x'],
    ['too long', `https://hooks.example.com/${'a'.repeat(2_100)}`],
  ])('refuses %s', (_why, url) => {
    expect(() => validateCallbackUrl(url)).toThrow(/delivery\.url/);
  });
  it('refuses plain http to loopback unless allowLoopback (development)', () => {
    expect(() => validateCallbackUrl('http://127.0.0.1:8080/hook')).toThrow(/https/);
    expect(validateCallbackUrl('http://127.0.0.1:8080/hook', { allowLoopback: true }).port).toBe('8080');
    expect(validateCallbackUrl('http://localhost:8080/hook', { allowLoopback: true }).hostname).toBe('localhost');
    expect(() => validateCallbackUrl('http://10.0.0.1/hook', { allowLoopback: true })).toThrow(/https/);
  });
  it.each([
    'https://127.0.0.1/x',
    'https://2130706433/x', // 127.0.0.1 as one number
    'https://0x7f.1/x',
    'https://10.1.2.3/x',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://[::ffff:a9fe:a9fe]/x',
    'https://[fd00::1]/x',
    'https://[fe80::1]/x',
    'https://0.0.0.0/x',
  ])('refuses the address literal in %s', (url) => {
    expect(() => validateCallbackUrl(url)).toThrow(/private, loopback or reserved/);
  });
  it('lets the allowlist name an internal address or network', () => {
    expect(validateCallbackUrl('https://10.1.2.3/x', { allow: ['10.1.0.0/16'] }).hostname).toBe('10.1.2.3');
    expect(validateCallbackUrl('https://[fd00::5]/x', { allow: ['fd00::/8'] }).hostname).toBe('[fd00::5]');
    expect(() => validateCallbackUrl('https://10.2.0.1/x', { allow: ['10.1.0.0/16'] })).toThrow();
  });
});

describe('globally routable addresses only', () => {
  const forbidden: Array<[string, string[]]> = [
    ['unspecified', ['0.0.0.0', '0.1.2.3', '::']],
    ['loopback', ['127.0.0.1', '127.255.255.254', '::1']],
    ['private (RFC 1918)', ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1']],
    ['carrier-grade NAT', ['100.64.0.1', '100.127.255.254']],
    ['link-local and metadata', ['169.254.0.1', '169.254.169.254', 'fe80::1', 'febf::1']],
    ['IETF protocol assignments', ['192.0.0.8', '2001::1', '2001:0:4136:e378::1']],
    ['documentation', ['192.0.2.1', '198.51.100.1', '203.0.113.1', '2001:db8::1', '3fff::1']],
    ['benchmarking', ['198.18.0.1', '198.19.255.255']],
    ['6to4 relay', ['192.88.99.1']],
    ['multicast', ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff05::1:3']],
    ['reserved and broadcast', ['240.0.0.1', '255.255.255.255']],
    ['unique local', ['fc00::1', 'fd12:3456::1']],
    ['site-local (deprecated)', ['fec0::1']],
    ['discard-only', ['100::1']],
    ['IPv4-mapped forms', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:192.168.0.1', '::ffff:100.64.0.1']],
    ['IPv4-compatible forms', ['::127.0.0.1', '::10.0.0.1', '::a9fe:a9fe']],
    ['NAT64 forms', ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::8.8.8.8']],
    ['6to4 forms', ['2002:7f00:1::1', '2002:a00:1::', '2002:a9fe:a9fe::1', '2002:c0a8:101::1']],
    ['zone ids', ['fe80::1%eth0']],
  ];
  it.each(forbidden)('refuses %s', (_class, addresses) => {
    for (const address of addresses) expect(isGlobalAddress(address), address).toBe(false);
  });
  it('accepts public unicast, also carried in IPv6', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1']) {
      expect(isGlobalAddress(address), address).toBe(true);
    }
  });
  it('refuses what is not an address', () => {
    for (const text of ['', 'localhost', '1.2.3', '::g', '1:2:3:4:5:6:7:8:9']) expect(isGlobalAddress(text), text).toBe(false);
  });
});
